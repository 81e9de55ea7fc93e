"""kvplan fit: the seed's arithmetic, vLLM's arithmetic era by era, errors, and properties."""

from __future__ import annotations

import json
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvplan
from kvplan.errors import InputError, RefusedByVLLMError
from kvplan.plan import EngineArgs, cdiv, plan
from kvplan.resolve import GIB, find_gpu, resolve_model
from kvplan.versions import rules_for

SEED_MODEL = "Qwen/Qwen2.5-0.5B-Instruct"


def seed(max_len: int, model: str = SEED_MODEL):
    return kvplan.fit(model, gpu_gb=16, overhead_gb=1, max_model_len=max_len)


# ---- the seed's worked example, exactly


def test_seed_worked_example_exactly():
    p = seed(4096)
    assert p.kv_bytes_per_token == 12_288
    assert p.weights_bytes == 988_065_536
    assert f"{p.weights_bytes / 1e9:.2f}" == "0.99"
    assert f"{p.requested_bytes / 1e9:.2f}" == "14.40"
    assert f"{p.kv_cache_bytes / 1e9:.2f}" == "12.41"
    assert p.kv_cache_tokens == 1_010_086
    assert f"{p.max_concurrency:.0f}" == "247"
    assert "concurrent seqs @ 4096  : 247" in p.vllm_log[-1]


@pytest.mark.parametrize("max_len,seqs", [(2048, "493"), (16384, "62"), (32768, "31")])
def test_seed_max_model_len_table(max_len, seqs):
    assert f"{seed(max_len).max_concurrency:.0f}" == seqs


def test_seed_7b_does_not_fit():
    p = seed(4096, "Qwen/Qwen2.5-7B-Instruct")
    assert f"{p.kv_cache_bytes / 1e9:.2f}" == "-1.83"
    assert not p.fits


@given(st.integers(min_value=256, max_value=32768), st.integers(min_value=256, max_value=32768))
@settings(max_examples=40, deadline=None)
def test_simple_mode_concurrency_is_exactly_inverse_to_max_model_len(a, b):
    pa, pb = seed(a), seed(b)
    assert pa.max_concurrency * a == pytest.approx(pb.max_concurrency * b, rel=1e-12)


# ---- per-token bytes


def per_token(model: str, **kw) -> float:
    return kvplan.fit(model, gpu="H100", fixes=False, **kw).kv_bytes_per_token


def test_gqa_vs_mha_ratio():
    gqa = per_token("meta-llama/Llama-3.1-8B-Instruct", max_model_len=4096)   # 8 KV heads
    mha = per_token("meta-llama/Llama-2-7b-hf", max_model_len=4096)           # 32 KV heads
    assert gqa == 32 * 2 * 8 * 128 * 2 and mha == 32 * 2 * 32 * 128 * 2
    assert mha / gqa == 4


def test_deepseek_v3_mla_bytes_per_token():
    m = resolve_model("deepseek-ai/DeepSeek-V3")
    assert all(l.kind == "mla" and l.head_dim == 576 for l in m.layers)
    p = kvplan.fit(m, "H200", tensor_parallel_size=8, max_model_len=4096, fixes=False)
    assert p.kv_bytes_per_token == 61 * 576 * 2 == 70_272  # MLA is not split by TP


def test_qwen38_27b_hybrid_state_and_tokens():
    m = resolve_model("Qwen/Qwen3.8-27B")
    gdn = [l for l in m.layers if l.kind == "recurrent"]
    full = [l for l in m.layers if l.kind == "full"]
    assert len(gdn) == 48 and len(full) == 16
    conv, ssm = gdn[0].recurrent.shapes(1)
    ssm_bytes = 48 * ssm[0] * ssm[1] * ssm[2] * 4  # fp32 state (config mamba_ssm_dtype)
    assert ssm_bytes == 144 * 1024 ** 2
    assert conv == (3, 2 * 16 * 128 + 48 * 128)
    p = kvplan.fit(m, "H100", max_model_len=32768, fixes=False)
    assert p.kv_bytes_per_token == 65_536
    assert p.state_bytes_per_sequence >= 48 * (3_145_728 + 3 * 10240 * 2)
    # the attention block size is raised so one page holds one sequence's recurrent state (a 0.17.0 Qwen3.5-27B log:
    # 1568 at fp8, a multiple of 16); from 0.33 GDN's prefill checkpoints put it on a 64-token grid on Hopper: 1600
    q = kvplan.fit(m, "H100", max_model_len=32768, kv_cache_dtype="fp8", fixes=False, vllm_version="0.17.0")
    assert q.block_size == 1568
    assert kvplan.fit(m, "H100", max_model_len=32768, kv_cache_dtype="fp8", fixes=False,
                      vllm_version="0.33.0").block_size == 1600


def test_sliding_window_caps_per_request_blocks():
    p = kvplan.fit("openai/gpt-oss-120b", "A100-80GB", tensor_parallel_size=4, max_model_len=16384,
                   max_num_batched_tokens=2048, vllm_version="0.10.1.1", fixes=False)
    groups = {g.kind for g in p.groups}
    assert groups == {"full", "sliding"}
    # full: cdiv(16384,16) = 1024; sliding: cdiv(min(127 + 2048, 16384), 16) + 1 = 137 (docs/vllm-memory-model.md section 3.6)
    assert p.blocks_for_tokens(16384) == 1024 + 137
    assert p.blocks_for_tokens(100_000) == p.blocks_for_tokens(16384) + (cdiv(100_000, 16) - 1024)


def test_tp_divides_kv_heads_and_replicates_when_fewer():
    m = resolve_model("meta-llama/Llama-3.1-8B-Instruct")
    one = kvplan.fit(m, "H100", max_model_len=4096, fixes=False).kv_bytes_per_token
    two = kvplan.fit(m, "H100", tensor_parallel_size=2, max_model_len=4096, fixes=False).kv_bytes_per_token
    sixteen = kvplan.fit("meta-llama/Llama-3.1-405B", "H100", tensor_parallel_size=16, max_model_len=4096, fixes=False)
    assert two * 2 == one
    assert sixteen.kv_bytes_per_token == 126 * 2 * 1 * 128 * 2  # 8 KV heads < TP 16: one head per rank, replicated
    # replication must be exact (QKVParallelLinear divides TP by the KV heads); the error lists the sizes that work
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "H100", tensor_parallel_size=7, fixes=False)  # 28 heads, 4 KV heads
    assert "cannot replicate 4 KV heads" in str(e.value) and e.value.fix.endswith(": 1, 2, 4")
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "H100", tensor_parallel_size=8, fixes=False)  # 14 heads, 2 KV heads
    assert "14 attention heads are not divisible by TP=8" in str(e.value) and e.value.fix.endswith(": 1, 2, 14")


def test_block_fp8_experts_must_split_into_whole_blocks():
    # Qwen3-235B-A22B-FP8: moe_intermediate_size 1536, weight_block_size [128, 128]; at TP 8 each rank's slice is 192,
    # which vLLM's Fp8MoEMethod refuses; expert parallelism keeps experts whole, TP 4 gives 384 = 3 x 128
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-235B-A22B-FP8", "H100", tensor_parallel_size=8, max_model_len=32768, fixes=False)
    assert e.value.field == "--tensor-parallel-size"
    assert "weight = 192 is not divisible by weight quantization block_n = 128" in str(e.value)
    assert "--enable-expert-parallel" in e.value.fix and e.value.fix.endswith("of 1, 2, 4")
    with pytest.raises(InputError) as e:  # without EP the experts are split over TP x DP ranks
        kvplan.fit("Qwen/Qwen3-235B-A22B-FP8", "H100", tensor_parallel_size=4, data_parallel_size=2,
                   max_model_len=32768, fixes=False)
    assert "TP 4 x DP 2 is 192 per rank" in str(e.value)
    assert kvplan.fit("Qwen/Qwen3-235B-A22B-FP8", "H100", tensor_parallel_size=8, enable_expert_parallel=True,
                      max_model_len=32768, fixes=False).fits
    assert kvplan.fit("Qwen/Qwen3-235B-A22B-FP8", "H100", tensor_parallel_size=4, max_model_len=32768, fixes=False).fits
    # the unquantized checkpoint has no blocks to split
    assert kvplan.fit("Qwen/Qwen3-235B-A22B", "H200", tensor_parallel_size=8, max_model_len=32768, fixes=False).fits


def test_quantized_weights_are_smaller_and_labelled():
    awq = resolve_model("Qwen/Qwen2.5-72B-Instruct-AWQ")
    p = kvplan.fit(awq, "H100", max_model_len=8192, fixes=False)
    assert not p.weights_exact
    # ~72.7B params: the linear layers at ~0.52 B/param, embeddings and lm_head in fp16
    assert 38 * GIB < p.weights_bytes < 45 * GIB
    fp8 = kvplan.fit("Qwen/Qwen3-32B-FP8", "H100", max_model_len=8192, fixes=False)
    bf16 = kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=8192, fixes=False)
    assert 0.5 < fp8.weights_bytes / bf16.weights_bytes < 0.56


def test_llama_weights_match_vllm_log_exactly():
    # vLLM logs "Model loading took 14.9888 GiB" (parameters 14.9575 GiB + 32 MiB rotary cache)
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "A100-80GB", max_model_len=4096, fixes=False)
    assert round(p.weights_bytes / GIB, 4) == 14.9888


# ---- the pool arithmetic against logged startups (given their logged KV GiB)


def given_pool(model, gpu, kv_gib, version, **kw):
    """The plan of a logged startup with its logged pool taken as given (validate --given-kv): the arithmetic after the
    pool, for any release (the pool is not --kv-cache-memory-bytes, which releases before 0.10.2 lack)."""
    from kvplan.api import engine_args
    from kvplan.plan import plan
    from kvplan.resolve import ModelSpec, resolve_gpu

    spec = model if isinstance(model, ModelSpec) else resolve_model(model)
    args = engine_args(kv_cache_memory_bytes=int(kv_gib * GIB), vllm_version=version, **kw)
    return plan(spec, resolve_gpu(gpu, detect=False)[0], args, pool_given=True)


def test_pool_arithmetic_phi3_sliding_window_0_19():
    p = given_pool("microsoft/Phi-3-mini-4k-instruct", "RTX 3090", 13.06, "0.19.1", max_model_len=4096, dtype="float16")
    assert p.num_gpu_blocks == 2228 and p.kv_cache_tokens == 35_648 and f"{p.max_concurrency:.2f}" == "8.67"


def test_pool_arithmetic_gpt_oss_hybrid_0_10():
    p = given_pool("openai/gpt-oss-120b", "A100-80GB", 45.32, "0.10.1.1", tensor_parallel_size=4, max_model_len=16384,
                   max_num_batched_tokens=2048)
    # the log prints GiB to 2 decimals: +-0.005 GiB is +-(0.005 GiB / bytes per block) blocks, 8 tokens each (N // 2 x 16)
    slack_tokens = 0.005 * GIB / p.bytes_per_block * 8
    assert abs(p.kv_cache_tokens - 2_640_144) <= slack_tokens and f"{p.max_concurrency:.2f}" == "284.25"


def test_pool_arithmetic_qwen36_gdn_0_24():
    m = resolve_model("nvidia/Qwen3.6-35B-A3B-NVFP4")
    # the logged run had prefix caching on ("align" mode: 2 pages per sequence and recurrent group)
    kw = dict(max_model_len=131072, kv_cache_dtype="fp8", max_num_seqs=1, max_num_batched_tokens=8192)
    p = given_pool(m, "RTX 5090", 6.01, "0.24.0", enable_prefix_caching=True, **kw)
    assert p.block_size == 2096 and p.num_gpu_blocks == 300
    assert p.kv_cache_tokens == 569_878 and f"{p.max_concurrency:.2f}" == "4.35"
    # 0.24 leaves prefix caching off for hybrids unless asked ("none" mode, 1 page): 300 / (63 + 3)
    default = given_pool(m, "RTX 5090", 6.01, "0.24.0", **kw)
    assert f"{default.max_concurrency:.2f}" == f"{300 / 66:.2f}"


# ---- verdict, error text and fixes


def test_does_not_fit_gives_vllms_error_and_fixes():
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=131072, gpu_memory_utilization=0.92)
    assert not p.fits
    assert "To serve at least one request with the model's max seq len (131072)" in p.error
    assert "the estimated maximum model length is" in p.error
    names = [f.name for f in p.fixes]
    assert "lower max_model_len" in names and "fp8 KV cache" in names and any("tensor parallel" in n for n in names)
    lower = next(f for f in p.fixes if f.name == "lower max_model_len")
    assert lower.fits and lower.flags["max_model_len"] == p.estimated_max_model_len // 16 * 16
    # applying the fix really starts
    q = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=lower.flags["max_model_len"], gpu_memory_utilization=0.92)
    assert q.fits


def test_a_hybrid_with_fewer_state_blocks_than_max_num_seqs_is_refused_from_0_20():
    from kvplan.diagnose import diagnose
    from kvplan.plan import fix_command_text

    # Qwen3.5-27B (Gated DeltaNet + attention) on one H100 at half its context: the pool holds a few hundred blocks,
    # under the 1024 sequences vLLM schedules by default there (vLLM PR #38270; issue #49064, recipes PR #551). At the
    # full 262,144 the newest rules stop first at the max-seq-len check (model runner v2's sampler state, ~0.98 GiB
    # for 1,024 slots x 248,320 logits, leaves the pool 0.04 GiB short)
    p = kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=131072)
    assert p.args.max_num_seqs == 1024 and 0 < p.num_gpu_blocks < 1024
    assert not p.fits and p.failure == "state_blocks"
    assert p.error.startswith(f"max_num_seqs (1024) exceeds available Mamba cache blocks ({p.num_gpu_blocks}).")
    # the pool was sized and logged before the CUDA graphs refuse it
    assert any(line.startswith("GPU KV cache size") for line in p.vllm_log) and p.vllm_log[-1].endswith(p.error)
    top = diagnose(list(p.vllm_log)).top  # the predicted log reads back as the same refusal
    assert (top.symptom, top.layer, top.fatal) == ("state_blocks_below_max_num_seqs", "memory_budget", True)
    fixes = {f.name: f for f in p.fixes}
    # the largest count that starts, as the memory path offers it (api._largest_max_num_seqs_plan): vLLM's message
    # names this pool's blocks, but fewer sequences leave a larger pool, so more than that starts, and one more does not
    seqs = fixes["lower max_num_seqs"].flags["max_num_seqs"]
    assert fixes["lower max_num_seqs"].fits and p.num_gpu_blocks < seqs < 1024
    # ... and it says so, or the offer reads as a misprint of the error's 'at most N'
    assert f"more than the {p.num_gpu_blocks:,} vLLM's message names" in fixes["lower max_num_seqs"].effect
    assert kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=131072, max_num_seqs=seqs).fits
    assert kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=131072, max_num_seqs=seqs + 1).failure == "state_blocks"
    assert fix_command_text(fixes["no CUDA graphs"].flags) == "--enforce-eager" and fixes["no CUDA graphs"].fits
    # --enforce-eager captures no graphs and is not checked; fewer sequences pass; 0.19 had no such check
    assert kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=131072, enforce_eager=True).fits
    assert kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=131072, max_num_seqs=p.num_gpu_blocks).fits
    before = kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=32768, vllm_version="0.19.1")
    assert before.fits and before.num_gpu_blocks < before.args.max_num_seqs
    assert kvplan.fit("Qwen/Qwen3.5-27B", "H100", max_model_len=32768, vllm_version="0.20.0").failure == "state_blocks"
    # a dense model with the same flags has no state blocks to run out of
    assert kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=32768).failure != "state_blocks"


def test_older_era_error_text():
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "RTX 3090", max_model_len=29000, gpu_memory_utilization=0.9,
                   vllm_version="0.6.4")
    assert not p.fits and p.error.startswith("The model's max seq len (29000) is larger than the maximum number of tokens")


def test_version_defaults_are_data():
    assert rules_for("0.19.1").default_gpu_memory_utilization == 0.90
    assert rules_for("0.20.0").default_gpu_memory_utilization == 0.92
    assert not rules_for("0.19.1").cudagraph_subtracted and rules_for("0.20.0").cudagraph_subtracted
    p = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, fixes=False)
    assert p.vllm_version == "0.33.0" and any("0.33.0" in a for a in p.assumptions)


# ---- properties


@given(st.floats(min_value=0.3, max_value=0.95), st.floats(min_value=0.0, max_value=0.04))
@settings(max_examples=30, deadline=None)
def test_more_memory_never_gives_fewer_blocks(util, more):
    m = resolve_model("meta-llama/Llama-3.1-8B-Instruct")
    a = plan(m, find_gpu("A100-80GB"), EngineArgs(max_model_len=8192, gpu_memory_utilization=util))
    b = plan(m, find_gpu("A100-80GB"), EngineArgs(max_model_len=8192, gpu_memory_utilization=min(1.0, util + more)))
    assert b.num_gpu_blocks >= a.num_gpu_blocks


# ---- bad input: one line naming the field and the fix


@pytest.mark.parametrize("kw,field", [
    ({"gpu_memory_utilization": 1.5}, "--gpu-memory-utilization"),
    ({"gpu_memory_utilization": 0}, "--gpu-memory-utilization"),
    ({"tensor_parallel_size": 3}, "--tensor-parallel-size"),
    ({"max_model_len": 10_000_000}, "--max-model-len"),
    ({"kv_cache_dtype": "int3"}, "--kv-cache-dtype"),
])
def test_bad_flags_name_the_field(kw, field):
    with pytest.raises(InputError) as e:
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", fixes=False, **kw)
    assert str(e.value).startswith(field)


def test_max_model_len_beyond_limit_uses_vllms_message():
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=100_000, fixes=False)
    assert "User-specified max_model_len (100000) is greater than the derived max_model_len" in str(e.value)


_LLAMA_SHAPE = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024, "intermediate_size": 2816,
                "num_hidden_layers": 8, "num_attention_heads": 8, "num_key_value_heads": 8, "vocab_size": 32000,
                "torch_dtype": "bfloat16", "max_position_embeddings": 16384}


@pytest.mark.parametrize("extra, derived", [
    # vLLM's _get_and_verify_max_len: the stated length times the rope factor (linear, dynamic), a yarn factor times
    # its original_max_position_embeddings; llama3 / longrope rope keep the stated length
    ({"rope_scaling": {"type": "linear", "factor": 4.0}}, 65536),
    ({"rope_scaling": {"type": "dynamic", "factor": 2.0}}, 32768),
    ({"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}}, 32768),
    ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                       "original_max_position_embeddings": 8192}}, 16384),
    # the smallest of the length keys it reads; 2048 ("Assuming the model's maximum length is 2048") when none
    ({"seq_length": 4096}, 4096),
    ({"max_position_embeddings": None}, 2048),
])
def test_the_default_max_model_len_is_the_length_vllm_derives_from_the_config(tmp_path, extra, derived):
    cfg = {k: v for k, v in dict(_LLAMA_SHAPE, **extra).items() if v is not None}
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg))
    spec = resolve_model(str(p))
    if "max_position_embeddings" not in cfg:  # transformers' LlamaConfig would fill in its class default: read raw
        from kvplan.resolve import normalize

        spec = normalize(cfg, model_id="no-length", source="test", autoconfig=False)
    p0 = kvplan.fit(spec, "H100", vllm_version="0.10.2", fixes=False)
    assert p0.args.max_model_len == derived
    kvplan.fit(spec, "H100", vllm_version="0.10.2", max_model_len=derived, fixes=False)  # accepted up to the limit
    if spec.max_position_embeddings is None:  # no length stated: vLLM takes the one given, however long
        assert kvplan.fit(spec, "H100", vllm_version="0.10.2", max_model_len=derived + 1, fixes=False).args.max_model_len == derived + 1
        return
    with pytest.raises(InputError, match="greater than the derived max_model_len"):
        kvplan.fit(spec, "H100", vllm_version="0.10.2", max_model_len=derived + 1, fixes=False)


def test_a_longrope_model_is_served_at_its_original_length_from_0_11_1():
    # vLLM PR #27431 (first in 0.11.1): with no --max-model-len a LongRoPE model (Phi-3.5-mini: 131072 stated,
    # original 4096) runs at its original length; before, at the stated one
    assert kvplan.fit("microsoft/Phi-3.5-mini-instruct", "H100", vllm_version="0.11.0", fixes=False).args.max_model_len == 131072
    p = kvplan.fit("microsoft/Phi-3.5-mini-instruct", "H100", vllm_version="0.12.0", fixes=False)
    assert p.args.max_model_len == 4096
    kvplan.fit("microsoft/Phi-3.5-mini-instruct", "H100", vllm_version="0.12.0", max_model_len=131072, fixes=False)


def run(*args):
    return subprocess.run(["kvplan", *args], capture_output=True, text=True, timeout=120)


def test_cli_default_is_the_seed_example_offline():
    r = run("fit", "--json", "--gpu", "T4")
    d = json.loads(r.stdout)
    assert r.returncode == 0
    assert d["model"] == SEED_MODEL and d["args"]["max_model_len"] == 4096
    for key in ("kv_bytes_per_token", "state_bytes_per_sequence", "weights_bytes", "budget_bytes", "kv_cache_bytes", "block_size",
                "num_gpu_blocks", "kv_cache_tokens", "max_concurrency", "fits", "vllm_log", "terms", "assumptions"):
        assert key in d


@pytest.mark.parametrize("args,code,needle", [
    (["fit", "no-such-model-xyz"], 2, "model"),
    (["fit", SEED_MODEL, "--gpu", "Z9000"], 2, "--gpu"),
    (["fit", SEED_MODEL, "--gpu", "L4", "--gpu-memory-utilization", "2"], 2, "--gpu-memory-utilization"),
    (["fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len", "131072"], 1, "estimated maximum model length"),
    (["fit", SEED_MODEL, "--no-such-flag"], 2, "No such option"),
    (["sweep", SEED_MODEL, "--gpu", "L4", "--vary", "max_model_len=4k,lots"], 2, "--vary"),
])
def test_cli_exit_codes_and_one_line_errors(args, code, needle):
    r = run(*args)
    assert r.returncode == code, r.stderr
    assert needle in (r.stderr + r.stdout)
    assert "Traceback" not in r.stderr


def test_cli_sweep_inverse_and_plot(tmp_path):
    r = run("sweep", SEED_MODEL, "--gpu-gb", "16", "--overhead-gb", "1", "--vary", "max_model_len=2048,4096,16384,32768", "--json")
    rows = json.loads(r.stdout)["rows"]
    assert [f"{x['max_concurrency']:.0f}" for x in rows] == ["493", "247", "62", "31"]
    png = tmp_path / "s.png"
    r = run("sweep", "meta-llama/Llama-3.1-8B-Instruct", "--vary", "max_model_len=4096..65536", "--vary", "gpu=L4,A100-80GB", "--plot", str(png))
    assert r.returncode == 0 and png.stat().st_size > 5000
    r = run("fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--max-model-len", "auto", "--concurrency", "4", "--json")
    d = json.loads(r.stdout)
    assert d["fits"] and d["max_concurrency"] >= 4
    r = run("fit", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "auto", "--max-model-len", "32768", "--json")
    d = json.loads(r.stdout)
    assert d["fits"] and "--gpu auto" in d["inverse"]


def test_cli_auto_length_names_the_refusal_no_length_answers():
    # weights beyond the GPU: no length starts, and the answer is the load's refusal (exit 1), not --concurrency's
    r = run("fit", "Qwen/Qwen2.5-32B-Instruct", "--gpu", "L4", "--max-model-len", "auto", "--concurrency", "1", "--json")
    d = json.loads(r.stdout)
    assert r.returncode == 1 and not d["fits"] and "while loading the model weights" in d["error"]
    assert "no context length starts" in d["inverse"] and d["fixes"]
    # nothing left for the cache blocks at any length: vLLM's own text
    p = kvplan.fit("Qwen/Qwen2.5-14B-Instruct", "RTX 5090", gpu_memory_utilization=0.85, fixes=False)
    refused = kvplan.api.refused_at_any_length(p)
    assert refused is not None and refused.error.startswith("No available memory for the cache blocks")
    # a length that starts exists: nothing refused at any length, and auto answers with that length (0.93: a pool of
    # 0.09 GiB, just above none; at the default 0.92 it held 0.12 GiB until model runner v2's graph estimate charged
    # 0.25 MiB x 48 layers x 51 sizes, 0.63 GiB against 0.28, and 0.92 now leaves -0.22)
    assert kvplan.api.refused_at_any_length(kvplan.fit("Qwen/Qwen2.5-14B-Instruct", "RTX 5090", gpu_memory_utilization=0.93,
                                                       fixes=False)) is None
    assert kvplan.api.refused_at_any_length(kvplan.fit("Qwen/Qwen2.5-14B-Instruct", "RTX 5090", gpu_memory_utilization=0.92,
                                                       fixes=False)) is not None


def test_expert_and_data_parallel():
    m = resolve_model("Qwen/Qwen3-30B-A3B-Instruct-2507")  # 128 experts
    one = kvplan.fit(m, "H100", max_model_len=32768, fixes=False)
    ep = kvplan.fit(m, "H100", max_model_len=32768, data_parallel_size=2, enable_expert_parallel=True, fixes=False)
    from kvplan.weights import count_weights

    experts = sum(c.params for c in count_weights(m).components if c.kind == "experts") * m.dtype_bytes
    # each of the 2 ranks holds 64 whole experts; everything else is replicated per data-parallel rank
    assert one.weights_bytes - ep.weights_bytes == pytest.approx(experts / 2, rel=1e-6)
    assert ep.args.num_gpus == 2 and any("2 engines" in a for a in ep.assumptions)
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-8B", "H100", enable_expert_parallel=True, fixes=False)
    assert str(e.value).startswith("--enable-expert-parallel")
    with pytest.raises(InputError):
        kvplan.fit(m, "H100", data_parallel_size=4, num_gpus=2, fixes=False)


def test_modelopt_mixed_precision_and_excluded_modules():
    mixed = resolve_model("nvidia/Qwen3.6-27B-NVFP4")
    per_module = dict(mixed.quant.module_bytes)
    assert per_module["mlp"] == 0.5625 and per_module["self_attn"] == 1.0 and per_module["linear_attn"] == 1.0
    # the checkpoint quantizes lm_head to NVFP4: without that entry it would stay bf16
    from dataclasses import replace

    from kvplan.weights import VOCAB_PADDING, weights_per_rank

    bf16_head = replace(mixed.quant, module_bytes=tuple(kv for kv in mixed.quant.module_bytes if kv[0] != "lm_head"))
    v_pad = -(-mixed.vocab_size // VOCAB_PADDING) * VOCAB_PADDING
    expected = v_pad * mixed.hidden_size * (2 - 0.5625)
    got = weights_per_rank(mixed, quant=bf16_head).bytes - weights_per_rank(mixed).bytes
    assert got == pytest.approx(expected, abs=2)
    excluded = resolve_model("nvidia/MiniMax-M2.7-NVFP4")
    assert any("self_attn" in s for s in excluded.quant.skip) and "lm_head" in excluded.quant.skip


def test_kv_cache_auto_follows_a_checkpoints_fp8_kv_scheme_from_0_14():
    # vLLM PRs #29980 / #30141: --kv-cache-dtype auto takes the checkpoint's FP8 KV cache (ModelOpt, compressed-tensors)
    old = kvplan.fit("nvidia/Qwen3.6-27B-NVFP4", "B200", max_model_len=32768, vllm_version="0.12.0", fixes=False)
    new = kvplan.fit("nvidia/Qwen3.6-27B-NVFP4", "B200", max_model_len=32768, vllm_version="0.14.1", fixes=False)
    assert old.args.kv_cache_dtype == "auto" and new.args.kv_cache_dtype == "fp8"
    assert old.kv_bytes_per_token == 2 * new.kv_bytes_per_token
    forced = kvplan.fit("nvidia/Qwen3.6-27B-NVFP4", "B200", max_model_len=32768, vllm_version="0.14.1", kv_cache_dtype="auto", fixes=False)
    assert forced.args.kv_cache_dtype == "fp8"  # "auto" given explicitly means the same as not given


def test_v0_engine_keeps_one_cache_of_all_attention_layers():
    # V0: cache_block_size = L_attn x bs x (K + V) x b, no window saving (docs section 3.3)
    p = kvplan.fit("google/gemma-2-9b", "H100", max_model_len=8192, vllm_version="0.6.3", fixes=False)
    assert len(p.groups) == 1 and p.groups[0].num_layers == 42
    assert p.bytes_per_block == 42 * 16 * 2 * 8 * 256 * 2
    ds = kvplan.fit("deepseek-ai/DeepSeek-V2-Lite", "H100", max_model_len=32768, vllm_version="0.7.3", fixes=False)
    assert ds.kv_bytes_per_token == 27 * 1280  # the 576-element bf16 MLA entry padded to 1280 bytes


def test_mamba_pages_follow_prefix_caching_mode():
    m = resolve_model("nvidia/Qwen3.6-35B-A3B-NVFP4")
    on = kvplan.fit(m, "RTX 5090", max_model_len=131072, fixes=False)                                # 0.33 default: align
    off = kvplan.fit(m, "RTX 5090", max_model_len=131072, enable_prefix_caching=False, fixes=False)  # "none" mode
    groups = sum(1 for g in on.groups if g.kind == "recurrent")
    full = len(on.groups) - groups
    # align mode also puts the attention block on GDN's 64-token checkpoint grid (1088 vs 1056 tokens): count state pages
    state_pages = lambda p: p.blocks_for_tokens(131072) - full * cdiv(131072, p.block_size)  # noqa: E731
    assert on.block_size % 64 == 0 and off.block_size % 64 != 0
    assert state_pages(on) - state_pages(off) == groups * 2  # 3 pages vs 1 per group


def test_fit_check_need_by_era():
    # 0.14-0.18 check the first group's need only; from 0.19 every group counts (kv_cache_utils.
    # _max_memory_usage_bytes_from_groups in the 0.18.1 and 0.19.0 wheels)
    kw = dict(max_model_len=131072, gpu_memory_utilization=0.85, fixes=False)
    assert kvplan.fit("google/gemma-3-27b-it", "H100", vllm_version="0.18.1", **kw).fits
    assert not kvplan.fit("google/gemma-3-27b-it", "H100", vllm_version="0.19.0", **kw).fits
    late = kvplan.fit("google/gemma-3-27b-it", "H100", vllm_version="0.33.0", **kw)
    assert late.fits == (late.kv_cache_bytes - late.bytes_per_block >= late.bytes_per_block * late.blocks_for_tokens(131072))


def test_max_model_len_minus_one_auto_fits_from_014():
    # vLLM >= 0.14: --max-model-len -1 keeps the model's limit when one request of it fits, else takes the
    # largest length the pool holds (the same estimate vLLM's fit-check error prints)
    full = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", fixes=False)
    assert not full.fits and full.estimated_max_model_len
    auto = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=-1, fixes=False)
    assert auto.fits and auto.args.max_model_len == full.estimated_max_model_len
    assert auto.args.max_model_len % auto.args.block_size == 0
    assert any(line.startswith("Auto-fit max_model_len: reduced from 131072 to") for line in auto.vllm_log)
    roomy = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=-1, fixes=False)
    assert roomy.fits and roomy.args.max_model_len == 131072
    assert any("full model context length 131072 fits" in line for line in roomy.vllm_log)
    # weights within the card but beyond the budget: no pool at all, so nothing to auto-fit
    none_left = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=-1, gpu_memory_utilization=0.5, fixes=False)
    assert not none_left.fits and "No available memory" in none_left.error
    # weights beyond the card: the load runs out of memory first
    too_big = kvplan.fit("meta-llama/Llama-3.1-70B", "L4", max_model_len=-1, fixes=False)
    assert not too_big.fits and too_big.failure == "load"
    with pytest.raises(InputError, match="auto-fit"):
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=-1, vllm_version="0.11.0")


MTP3 = '{"method": "mtp", "num_speculative_tokens": 3}'


def test_speculative_mtp_adds_the_drafter_weights_kv_layer_and_state_pages():
    base = kvplan.fit("Qwen/Qwen3.6-35B-A3B", "H200", max_model_len=32768, fixes=False)
    mtp = kvplan.fit("Qwen/Qwen3.6-35B-A3B", "H200", max_model_len=32768, speculative_config=MTP3, fixes=False)
    # one MoE decoder layer of 256 experts x 3 x 2048 x 512 (bf16) and its attention: about 1.6 GB more weights
    assert 1.4e9 < mtp.weights_bytes - base.weights_bytes < 1.8e9
    attn = lambda p: sum(g.num_layers for g in p.groups if g.kind == "full")
    assert attn(mtp) == attn(base) + 1
    # GDN state: the conv state grows by num_spec rows and each sequence holds num_spec more pages (>= 0.17)
    assert mtp.state_bytes_per_sequence > base.state_bytes_per_sequence
    old = kvplan.fit("Qwen/Qwen3.6-35B-A3B", "H200", max_model_len=32768, speculative_config=MTP3, vllm_version="0.14.1", fixes=False)
    assert attn(old) == attn(base) + 1


def test_speculative_config_errors_name_the_field():
    with pytest.raises(InputError, match="--speculative-config"):
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", speculative_config=MTP3)  # no MTP layers
    with pytest.raises(InputError, match="draft model"):
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", speculative_config='{"method": "eagle3", "num_speculative_tokens": 2}')
    with pytest.raises(InputError, match="num_speculative_tokens"):
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", speculative_config='{"method": "ngram"}')
    # 0.31: the last release whose model runner v2 lacks n-gram drafting (rules row mrv2_v1_spec_methods)
    ngram = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, vllm_version="0.31.0",
                       speculative_config='{"method": "ngram", "num_speculative_tokens": 4}', fixes=False)
    plain = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, vllm_version="0.31.0", fixes=False)
    # n-gram drafting loads no weights and keeps no KV; it only keeps the server on the V1 model runner (model runner
    # v2 lacks it up to 0.31), whose CUDA-graph estimate differs and which keeps no sampler penalty state
    from kvplan.plan import mrv2_sampler_state_bytes

    assert ngram.weights_bytes == plain.weights_bytes
    state = mrv2_sampler_state_bytes(plain.model, plain.args, plain.rules)
    assert state > 0 and mrv2_sampler_state_bytes(ngram.model, ngram.args, ngram.rules) == 0
    assert ngram.non_torch_bytes == plain.non_torch_bytes - state
    # the rest moves between the runners' own profile and graph terms; the budget they and the pool share does not

    def spent(p):
        return p.kv_cache_bytes + p.cudagraph_bytes + p.activation_peak_bytes + p.non_torch_bytes

    assert spent(ngram) == pytest.approx(spent(plain), abs=4)
    # from 0.32 model runner v2 drafts n-grams itself: the sampler state is kept as without drafting
    ngram33 = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, vllm_version="0.33.0",
                         speculative_config='{"method": "ngram", "num_speculative_tokens": 4}', fixes=False)
    assert mrv2_sampler_state_bytes(ngram33.model, ngram33.args, ngram33.rules) > 0


def test_nvls_buffers_are_charged_only_where_nccl_is_and_only_on_nvswitch_hopper_past_two_ranks():
    def non_torch(gpu, tp, version):
        return kvplan.fit("Qwen/Qwen3-32B", gpu, tensor_parallel_size=tp, max_model_len=8192, vllm_version=version,
                          fixes=False).non_torch_bytes

    base = non_torch("H100", 2, "0.10.0")
    assert non_torch("H100", 4, "0.10.0") > base + 1.5 * 1024 ** 3     # NVLS: TP > 2 on an NVSwitch, NCCL charged
    assert non_torch("A100 80GB", 4, "0.10.0") == non_torch("A100 80GB", 2, "0.10.0")  # Ampere has no NVLS
    assert non_torch("H100 PCIe", 4, "0.10.0") == non_torch("H100 PCIe", 2, "0.10.0")  # bridged cards: no NVSwitch
    assert non_torch("H100", 4, "0.11.0") == non_torch("H100", 2, "0.11.0")            # from 0.11 NCCL is not charged


@pytest.mark.parametrize("version", ["0.10.2", "0.14.1", "0.33.0"])
def test_tensor_parallel_over_hopper_nvlink_charges_its_measured_excess_in_every_v1_release(version):
    # H100 TP2 startups log 0.54-0.55 GiB of non-torch memory against 0.07-0.14 GiB at TP1; A100s and PCIe cards do not
    def non_torch(gpu, tp):
        return kvplan.fit("Qwen/Qwen3-32B", gpu, tensor_parallel_size=tp, max_model_len=8192, vllm_version=version,
                          fixes=False).non_torch_bytes

    # from 0.17 a TP > 1 startup on Hopper also builds FlashInfer's all-reduce fusion workspace, 3 x 512 MiB
    # (plan.fi_allreduce_workspace_bytes; tests/test_fi_allreduce_workspace.py)
    workspace = 1.5 * GIB if tuple(map(int, version.split("."))) >= (0, 17, 0) else 0.0
    assert non_torch("H100", 2) - non_torch("H100", 1) == pytest.approx(0.55 * GIB + workspace, rel=0.01)
    assert non_torch("A100 80GB", 2) == non_torch("A100 80GB", 1)
    assert non_torch("L40S", 2) == non_torch("L40S", 1)
    p = kvplan.fit("Qwen/Qwen3-32B", "H100", tensor_parallel_size=2, max_model_len=8192, vllm_version=version)
    assert any(t.name == "non_torch" and "over NVLink on Hopper" in t.formula for t in p.terms)


def test_runner_pooling_drops_the_lm_head_and_the_sampler_and_deploys_as_pooling(tmp_path):
    gen = kvplan.fit("Qwen/Qwen3-8B", gpu="H100", max_model_len=8192, vllm_version="0.12.0")
    emb = kvplan.fit("Qwen/Qwen3-8B", gpu="H100", max_model_len=8192, vllm_version="0.12.0", runner="pooling")
    old = kvplan.fit("Qwen/Qwen3-8B", gpu="H100", max_model_len=8192, vllm_version="0.9.2", runner="embed")
    # the checkpoint's lm_head, not loaded, with the 1 MiB rest of its 2 MiB-rounded block (1,187 MiB)
    assert gen.weights_bytes - emb.weights_bytes == 151_936 * 4096 * 2 + 2 ** 20
    assert emb.activation_peak_bytes < gen.activation_peak_bytes      # no sampler over max_num_seqs x vocab
    assert emb.kv_cache_bytes > gen.kv_cache_bytes
    assert any("--runner pooling" in a for a in emb.assumptions)
    assert old.model.is_pooling  # --task embed, vLLM's older spelling, is the pooling runner
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-8B", gpu="H100", runner="serve")
    assert e.value.field == "--runner"
    from kvplan.deploy import render_files, spec_from_plan

    new_files, old_files = (render_files(spec_from_plan(p)) for p in (emb, old))
    assert "--runner pooling" in new_files["serve.sh"] and "--task embed" in old_files["serve.sh"]
    assert "client.embeddings.create" in new_files["client.py"]
    assert "chat.completions" not in new_files["client.py"]
    gen_files = render_files(spec_from_plan(gen))
    assert "--runner" not in gen_files["serve.sh"] and "chat.completions.create" in gen_files["client.py"]


@pytest.mark.parametrize("text,tokens", [("32k", 32_000), ("32K", 32_768), ("25.6k", 25_600),
                                         ("1m", 1_000_000), ("4,096", 4096), ("-1", -1)])
def test_max_model_len_is_read_as_vllm_serve_reads_it(text, tokens):
    # vllm/engine/arg_utils.py human_readable_int: lowercase suffixes are decimal, uppercase and IEC ones binary
    from kvplan.plan import parse_max_model_len

    assert parse_max_model_len(text) == tokens


@pytest.mark.parametrize("text", ["2.5K", "32 k", "banana", "32Ki", "8Mi"])  # vLLM's human_readable_int refuses IEC
def test_max_model_len_vllm_would_refuse_is_refused(text):
    from kvplan.plan import parse_max_model_len

    with pytest.raises(InputError) as e:
        parse_max_model_len(text)
    assert e.value.field == "--max-model-len"


def test_window_layers_are_kept_as_windows_only_where_the_release_can():
    # read in the release wheels: sliding-window specs from 0.8.3, the hybrid KV-cache manager from 0.9.1,
    # chunked-local specs from 0.10.0 with the manager off for them in 0.10.1-0.13
    def groups(model, version, **kw):
        p = kvplan.fit(model, vllm_version=version, **kw)
        return p, sorted({g.kind for g in p.groups})

    # no images, so no encoder pass: 0.9.1 also casts the profiled pixels to the model's dtype, which frees memory for
    # the pool (test_multimodal_pixels_reach_the_gpu_in_the_model_dtype_from_0_9_1)
    gemma = dict(gpu="H100", max_model_len=32768, limit_mm_per_prompt='{"image": 0}')
    (old, old_kinds), (new, new_kinds) = groups("google/gemma-3-27b-it", "0.9.0", **gemma), groups("google/gemma-3-27b-it", "0.9.1", **gemma)
    assert old_kinds == ["full"] and new_kinds == ["full", "sliding"]
    # the pool is the same but for the non-torch accounting (0.9.0 charges the device-wide non-torch memory, 0.35 GiB,
    # 0.9.1 its increase over the init snapshot, 0.02 GiB: calibration.py V1-a): its use is not
    assert old.kv_cache_bytes == pytest.approx(new.kv_cache_bytes - (old.non_torch_bytes - new.non_torch_bytes), rel=1e-6)
    assert (old.non_torch_bytes - new.non_torch_bytes) / 1024 ** 3 == pytest.approx(0.33, abs=1e-3)
    with_images = {k: v for k, v in gemma.items() if k != "limit_mm_per_prompt"}
    assert (kvplan.fit("google/gemma-3-27b-it", vllm_version="0.9.1", **with_images).kv_cache_bytes
            > kvplan.fit("google/gemma-3-27b-it", vllm_version="0.9.0", **with_images).kv_cache_bytes)
    assert new.max_concurrency > 2 * old.max_concurrency
    assert any("no hybrid KV-cache manager" in a for a in old.assumptions)
    phi = dict(gpu="L4", max_num_batched_tokens=512)
    assert groups("microsoft/Phi-3-mini-4k-instruct", "0.8.2", **phi)[1] == ["full"]
    assert groups("microsoft/Phi-3-mini-4k-instruct", "0.8.3", **phi)[1] == ["sliding"]
    scout = dict(gpu="H100", tensor_parallel_size=4, max_model_len=131072)
    kinds = {v: groups("meta-llama/Llama-4-Scout-17B-16E-Instruct", v, **scout) for v in ("0.9.2", "0.10.0", "0.10.1", "0.14.0")}
    assert [k for _, k in kinds.values()] == [["full"], ["chunked", "full"], ["full"], ["chunked", "full"]]
    assert any(w.startswith("Hybrid KV cache manager is disabled") for w in kinds["0.10.1"][0].warnings)
    assert not any(w.startswith("Hybrid KV cache manager is disabled") for w in kinds["0.9.2"][0].warnings)


@pytest.mark.parametrize("model, kw, engine, why", [
    ("Qwen/Qwen2.5-3B-Instruct", dict(gpu="T4", vllm_version="0.8.2"), "v0", "Compute Capability < 8.0"),
    ("Qwen/Qwen2.5-3B-Instruct", dict(gpu="T4", vllm_version="0.10.2"), "v1", None),
    ("Qwen/Qwen2.5-3B-Instruct", dict(gpu="L4", vllm_version="0.9.2", kv_cache_dtype="fp8"), "v0", "--kv-cache-dtype"),
    ("Qwen/Qwen2.5-3B-Instruct", dict(gpu="H100", vllm_version="0.9.2", kv_cache_dtype="fp8"), "v1", None),
    ("Qwen/Qwen2.5-3B-Instruct", dict(gpu="L4", vllm_version="0.8.1", kv_cache_dtype="fp8"), "v0", "--kv-cache-dtype"),
    ("Qwen/Qwen2.5-3B-Instruct", dict(gpu="L4", vllm_version="0.11.0", kv_cache_dtype="fp8"), "v1", None),
    ("Qwen/Qwen3-8B", dict(gpu="H100", vllm_version="0.9.1", runner="pooling"), "v0", "--task embed"),
    ("Qwen/Qwen3-8B", dict(gpu="H100", vllm_version="0.9.2", runner="pooling"), "v1", None),
    ("Qwen/Qwen3-8B", dict(gpu="H100", vllm_version="0.8.5", pipeline_parallel_size=2), "v0", "PP"),
    ("google/gemma-3-27b-it", dict(gpu="H100", vllm_version="0.8.0"), "v0", "['Gemma3ForConditionalGeneration']"),
    ("google/gemma-3-27b-it", dict(gpu="H100", vllm_version="0.8.1"), "v1", None),
    ("ai21labs/Jamba-v0.1", dict(gpu="H100", tensor_parallel_size=2, vllm_version="0.10.1"), "v0", "['JambaForCausalLM']"),
    ("ai21labs/Jamba-v0.1", dict(gpu="H100", tensor_parallel_size=2, vllm_version="0.10.2"), "v1", None),
])
def test_releases_0_8_to_0_10_fall_back_to_v0_where_their_oracle_does(model, kw, engine, why):
    # EngineArgs._is_v1_supported_oracle, read in the 0.8.0-0.10.2 wheels: vLLM logs the feature and runs V0
    from kvplan.simulate import scheduler_rules

    p = kvplan.fit(model, max_model_len=4096, **kw)
    assert p.rules.engine == engine
    fallback = [w for w in p.warnings if w.endswith("is not supported by the V1 Engine. Falling back to V0.")]
    assert fallback == ([f"{why} is not supported by the V1 Engine. Falling back to V0."] if why else [])
    assert scheduler_rules(p.vllm_version, p.rules.engine).engine == engine


def test_mamba_cache_mode_by_release_and_family():
    # read in the wheels: hybrids default to prefix caching only from 0.26; with it on, 0.15-0.27 give the Mamba1/2
    # families "all" mode (a page per block) and the others "align" (2 pages); 0.28 gives every hybrid "align"
    kw = dict(tensor_parallel_size=2, max_model_len=65536, allow_long_max_model_len=True, fixes=False)

    def pages(version, **more):
        p = kvplan.fit("nvidia/Nemotron-H-56B-Base-8K", "H200", vllm_version=version, **kw, **more)
        rec = [g for g in p.groups if g.kind == "recurrent"]
        full = [g for g in p.groups if g.kind != "recurrent"]
        return (p.blocks_for_tokens(65536) - sum(cdiv(65536, g.block_size) for g in full)) // len(rec), rec[0].block_size

    assert pages("0.20.0")[0] == 1                                          # no prefix caching: "none"
    assert pages("0.11.0", enable_prefix_caching=True)[0] == 1              # 0.11.0: one page whatever the flag
    assert pages("0.11.1", enable_prefix_caching=True)[0] == cdiv(65536, pages("0.11.1")[1])  # a page per block
    per_group, bs = pages("0.20.0", enable_prefix_caching=True)
    assert per_group == cdiv(65536, bs)                                     # "all"
    assert pages("0.26.0")[0] == cdiv(65536, bs)                            # on by default, still "all"
    assert pages("0.28.0")[0] == 2                                          # "align"
    gdn = kvplan.fit("nvidia/Qwen3.6-35B-A3B-NVFP4", "RTX 5090", max_model_len=131072, vllm_version="0.26.0", fixes=False)
    rec = sum(1 for g in gdn.groups if g.kind == "recurrent")
    off = kvplan.fit("nvidia/Qwen3.6-35B-A3B-NVFP4", "RTX 5090", max_model_len=131072, vllm_version="0.25.1", fixes=False)
    assert gdn.blocks_for_tokens(131072) - off.blocks_for_tokens(131072) == rec  # GDN: "align" 2 pages vs "none" 1


def test_release_steps_read_in_the_wheels():
    # steps that the wheels place elsewhere than the first release the memory-model document read
    assert kvplan.fit("poolside/Laguna-S-2.1-FP8", "H100", max_model_len=32768, vllm_version="0.14.1", fixes=False).args.kv_cache_dtype == "auto"
    assert kvplan.fit("poolside/Laguna-S-2.1-FP8", "H100", max_model_len=32768, vllm_version="0.15.0", fixes=False).args.kv_cache_dtype == "fp8"
    b200 = {v: kvplan.fit("Qwen/Qwen3-8B", "B200", vllm_version=v, fixes=False).args for v in ("0.27.0", "0.28.0")}
    assert (b200["0.27.0"].max_num_batched_tokens, b200["0.28.0"].max_num_batched_tokens) == (8192, 16384)
    assert [rules_for(v).group_size_max_ratio for v in ("0.11.2", "0.12.0", "0.17.1", "0.18.0")] == [0.0, 1.25, 1.25, 1.5]
    assert [rules_for(v).window_inflight for v in ("0.25.1", "0.26.0")] == ["one", "mrv1-async"]


@pytest.mark.parametrize("version, see, models_typo", [("0.12.0", False, True), ("0.13.0", True, True),
                                                       ("0.21.0", True, True), ("0.22.0", True, False)])
def test_fit_error_text_by_release(version, see, models_typo):
    # the wheels: the docs link is added in 0.13.0, the CPU-backend wording and "model's" in 0.22.0
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=131072, vllm_version=version, fixes=False)
    assert not p.fits and p.error.startswith("To serve at least one request with the model")
    assert ("conserving_memory" in p.error) == see and ("models's" in p.error) == models_typo


def test_v0_keeps_mamba_state_outside_the_kv_cache_in_the_profile_peak():
    # V0's MambaCacheManager: conv + SSM state of every Mamba layer for the padded max_num_seqs, allocated on the
    # profile run's first forward; the KV cache holds the attention layers only
    from kvplan.plan import _state_bytes

    kw = dict(tensor_parallel_size=2, max_model_len=32768, vllm_version="0.7.3", fixes=False)
    p = kvplan.fit("ai21labs/Jamba-v0.1", "H100", **kw)
    eager = kvplan.fit("ai21labs/Jamba-v0.1", "H100", max_num_seqs=100, enforce_eager=True, **kw)
    padded = kvplan.fit("ai21labs/Jamba-v0.1", "H100", max_num_seqs=100, **kw)
    rec = [l for l in p.model.layers if l.kind == "recurrent"]
    per_seq = len(rec) * _state_bytes(rec[0], 2, 2, 2)
    assert p.rules.engine == "v0" and len(p.groups) == 1 and p.groups[0].num_layers == 4  # the attention layers
    assert padded.activation_peak_bytes - eager.activation_peak_bytes == 4 * per_seq  # 100 -> 104 (multiple of 8)


def test_sweep_and_prefix_caching_flags_as_vllm_serve_takes_them():
    r = run("sweep", SEED_MODEL, "--gpu", "L4", "--vary", "max_model_len=4k,16K", "--json")
    assert r.returncode == 0, r.stderr
    assert [row["max_model_len"] for row in json.loads(r.stdout)["rows"]] == [4000, 16384]
    on, off = (json.loads(run("fit", "ibm-granite/granite-4.0-h-tiny", "--gpu", "L4", "--vllm-version", "0.20.0",
                              "--max-model-len", "32768", flag, "--json").stdout) for flag in ("--enable-prefix-caching", "--no-enable-prefix-caching"))
    assert on["args"]["enable_prefix_caching"] is True and off["args"]["enable_prefix_caching"] is False
    assert on["max_concurrency"] < off["max_concurrency"]  # 0.20 gives the Mamba2 family "all" mode with prefix caching


def test_deepseek_v4_cache_groups_reproduce_a_logged_fit_error():
    # vLLM's check on MI300X x8 (ROCm, fp8): "To serve at least one request with the model's max seq len (1048576),
    # (23.32 GiB KV cache is needed, ..." (vLLM issue, Aug 2026; tests/data/calibration.jsonl deepseek-v4-pro-mi300x).
    # 23.32 GiB is one pool block per block held, the check of 0.29 on; 0.28.0's layer-tuple check gives 24.06
    import dataclasses

    from kvplan.resolve import CheckpointWeights

    m = resolve_model("deepseek-ai/DeepSeek-V4-Pro")
    m = dataclasses.replace(m, checkpoint=CheckpointWeights((("F8_E4M3", 800 * GIB),), source="test: stated bytes"))
    p = kvplan.fit(m, "MI300X", tensor_parallel_size=8, max_model_len=1048576, kv_cache_dtype="fp8",
                   enable_prefix_caching=False, kv_cache_memory_bytes=20 * GIB, vllm_version="0.29.0", fixes=False)
    assert p.bytes_per_block == 1_435_968 and len(p.groups) == 5
    assert p.blocks_for_tokens(1048576) == 17_434
    assert not p.fits and "(23.32 GiB KV cache is needed" in p.error
    p28 = kvplan.fit(m, "MI300X", tensor_parallel_size=8, max_model_len=1048576, kv_cache_dtype="fp8",
                     enable_prefix_caching=False, kv_cache_memory_bytes=20 * GIB, vllm_version="0.28.0", fixes=False)
    assert p28.bytes_per_block == 1_435_968 and "(24.06 GiB KV cache is needed" in p28.error


def test_deepseek_v4_weights_are_counted_tensor_by_tensor():
    import dataclasses
    # DeepSeek published V4-Pro as 1.6T parameters with 49B active (Hugging Face blog, "DeepSeek-V4", April 2026)
    from kvplan.weights import count_weights, weights_per_rank

    m = resolve_model("deepseek-ai/DeepSeek-V4-Pro")
    c = count_weights(m)
    assert 1.55e12 < c.total_params < 1.65e12 and 48e9 < c.active_params < 51e9
    w8 = weights_per_rank(m, tp=8)
    # MXFP4 experts (0.53 B per weight) dominate: about 1.55T x 0.53 / 8 ranks, plus the FP8 attention and bf16 embeddings
    assert 98 * GIB < w8.bytes < 106 * GIB and not w8.exact
    tp16 = weights_per_rank(m, tp=16)  # 3072 / 16 = 192 rows per rank: the MXFP4 kernels tile 128, so 256
    assert any("padded to 256 rows" in n for n in tp16.notes) and 0.6 * w8.bytes < tp16.bytes < 0.75 * w8.bytes
    assert weights_per_rank(m, tp=16, ep=16).bytes < 0.55 * w8.bytes  # whole experts per rank: nothing to pad
    fp8_experts = dataclasses.replace(m, text_config={**m.text_config, "expert_dtype": "fp8"})
    assert weights_per_rank(fp8_experts, tp=8).bytes > 1.8 * w8.bytes
    assert weights_per_rank(m, tp=8, mtp=True).bytes > w8.bytes  # the MTP layer loads as the drafter
    p = kvplan.fit(m, "H200", tensor_parallel_size=8, max_model_len=131072, fixes=False)
    assert p.weights_bytes >= w8.bytes and p.block_size == 256
    from kvplan.validate import uncertainty_band

    assert uncertainty_band(p)["text"].startswith("outside what was validated")  # no V4 startup logs its pool yet
    # the layout's own name is taken for V4, and refused with the reason elsewhere
    assert kvplan.fit(m, "H200", tensor_parallel_size=8, max_model_len=131072, kv_cache_dtype="fp8_ds_mla",
                      fixes=False).bytes_per_block == p.bytes_per_block
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-8B", "H200", kv_cache_dtype="fp8_ds_mla")
    assert e.value.field == "--kv-cache-dtype"


def test_deepseek_v4_on_mi300x_fails_at_the_160_gib_batch_default_and_starts_at_8192():
    # vLLM issue #53961 (Aug 2026, 0.28 era): MI300X's 191.98 GiB falls in the >= 160 GiB tier, max_num_batched_tokens
    # doubles to 16384, and DeepSeek-V4-Pro TP8 at 1M no longer fits the 23.32 GiB one request needs; at 8192 it did.
    # The ROCm indexer's decode-logits workspace has T rows before 0.30 (T x 262,144 fp32 = 16 GiB at T = 16384).
    kw = dict(tensor_parallel_size=8, max_model_len=1048576, kv_cache_dtype="fp8", enable_prefix_caching=False,
              vllm_version="0.29.0", fixes=False)
    default = kvplan.fit("deepseek-ai/DeepSeek-V4-Pro", "MI300X", **kw)
    assert default.args.max_num_batched_tokens == 16384
    assert not default.fits and "(23.32 GiB KV cache is needed" in default.error  # the issue's own figure
    assert kvplan.fit("deepseek-ai/DeepSeek-V4-Pro", "MI300X", max_num_batched_tokens=8192, **kw).fits
    # from 0.30 the logits rows are capped at max_num_seqs: the tier no longer costs 8 GiB more
    later = kvplan.fit("deepseek-ai/DeepSeek-V4-Pro", "MI300X", **{**kw, "vllm_version": "0.30.0"})
    assert later.activation_peak_bytes < default.activation_peak_bytes - 10 * GIB
    # on CUDA there is no logits workspace: the largest buffer is the attention gather or the indexer's keys
    h200 = kvplan.fit("deepseek-ai/DeepSeek-V4-Pro", "H200", **{**kw, "max_num_batched_tokens": 16384})
    assert any("attention gather" in n or "indexer prefill keys" in n for n in h200.assumptions)


def _v4_flash_attention(tmp_path):
    """DeepSeek-V4-Flash's attention layout: 43 layers, two window-only then ratios 4 and 128 alternating, 64 heads of
    512, hidden 4096, q_lora_rank 1024. Only these fields size the KV cache; the rest is V4-Pro's, so the weights of
    this stand-in are not Flash's and no test below looks at them."""
    m = resolve_model("deepseek-ai/DeepSeek-V4-Pro")
    ratios = [0, 0] + [4 if i % 2 == 0 else 128 for i in range(41)] + [0]
    cfg = {**m.text_config, "num_hidden_layers": 43, "compress_ratios": ratios, "num_attention_heads": 64,
           "hidden_size": 4096, "q_lora_rank": 1024}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    return str(tmp_path)


def test_deepseek_v4_before_0_27_charges_layer_tuples_as_vllm_did(tmp_path):
    flash = _v4_flash_attention(tmp_path)
    # the stand-in's weights (not Flash's) exceed one card; --cpu-offload-gb keeps them loadable, the pool is given
    kw = dict(tensor_parallel_size=2, enable_expert_parallel=True, kv_cache_dtype="fp8", block_size=256, fixes=False,
              cpu_offload_gb=150)
    # vLLM issue #44376 (comment of 2026-06-03, the 0.22 era; the pool is given, so either GH200 does): two GH200 from Python's vllm.LLM, whose default budget
    # there is 16,384 tokens: "(6.66 GiB KV cache is needed, which is larger than the available KV cache memory
    # (5.44 GiB). Based on the available memory, the estimated maximum model length is 13528."
    p = kvplan.fit(flash, "GH200 96GB", max_model_len=30000, entrypoint="llm", enable_prefix_caching=True,
                   vllm_version="0.22.0", kv_cache_memory_bytes=int(5.441 * GIB), **kw)
    assert p.args.max_num_batched_tokens == 16384
    assert not p.fits and "(6.66 GiB KV cache is needed" in p.error and "maximum model length is 13528." in p.error
    # vLLM issue #51041 (0.26.0, H20, TP2): "KV cache holds only 150K tokens in 7.7 GiB" at max_model_len 121344,
    # max_num_seqs 32; async scheduling keeps 2 x 8,192 tokens in flight in the window groups
    p = kvplan.fit(flash, "H20", max_model_len=121344, max_num_seqs=32, max_num_batched_tokens=8192,
                   vllm_version="0.26.0", kv_cache_memory_bytes=int(7.7 * GIB), **kw)
    assert p.num_gpu_blocks == 7952 and 149_000 < p.kv_cache_tokens < 152_000
    # from 0.27 the largest group is the block: the same pool holds a different count
    later = kvplan.fit(flash, "H20", max_model_len=121344, max_num_seqs=32, max_num_batched_tokens=8192,
                       vllm_version="0.28.0", kv_cache_memory_bytes=int(7.7 * GIB), **kw)
    assert abs(later.kv_cache_tokens - p.kv_cache_tokens) > 5_000


def test_deepseek_v4_window_only_layers_join_the_sliding_groups(tmp_path):
    # a ratio-0 layer keeps its sliding window and nothing compressed (models/deepseek_v4/attention.py: compress_ratio
    # <= 1 registers only the SWA cache); V4-Flash-style configs start with two of them
    m = resolve_model("deepseek-ai/DeepSeek-V4-Pro")
    ratios = [0, 0] + list(m.text_config["compress_ratios"][2:])
    (tmp_path / "config.json").write_text(json.dumps({**m.text_config, "compress_ratios": ratios}))
    flash = resolve_model(str(tmp_path))
    assert [l.kind for l in flash.layers[:3]] == ["swa", "swa", "csa"]
    a = kvplan.fit(m, "H200", tensor_parallel_size=8, max_model_len=131072, fixes=False)
    b = kvplan.fit(flash, "H200", tensor_parallel_size=8, max_model_len=131072, fixes=False)
    # two fewer compressed layers: a smaller attention page; the same number of window members
    assert b.groups[0].page_bytes < a.groups[0].page_bytes
    assert sum(g.num_layers * g.page_bytes for g in b.groups if g.block_size == 64) == sum(
        g.num_layers * g.page_bytes for g in a.groups if g.block_size == 64)
    assert b.weights_bytes < a.weights_bytes  # no compressors on the window-only layers


def test_serve_sh_carries_prefix_caching_when_the_plan_was_made_with_it():
    from kvplan.deploy import render_files, spec_from_plan

    def serve(**kw):
        return render_files(spec_from_plan(kvplan.fit("nvidia/Qwen3.6-35B-A3B-NVFP4", "RTX 5090", max_model_len=131072, **kw)))["serve.sh"]

    assert "  --enable-prefix-caching\n" in serve(enable_prefix_caching=True)
    assert "  --no-enable-prefix-caching\n" in serve(enable_prefix_caching=False)
    assert "prefix-caching" not in serve()  # the version's default is left to vLLM


def test_cpu_offload_keeps_weights_off_the_gpu_and_is_said_everywhere():
    base = kvplan.fit("Qwen/Qwen2.5-14B-Instruct", "L40S", max_model_len=8192, fixes=False)
    off = kvplan.fit("Qwen/Qwen2.5-14B-Instruct", "L40S", max_model_len=8192, cpu_offload_gb=4, fixes=False)
    assert base.weights_bytes - off.weights_bytes == 4 * GIB
    assert off.kv_cache_bytes - base.kv_cache_bytes == pytest.approx(4 * GIB, rel=1e-6)
    assert any("--cpu-offload-gb 4" in a for a in off.assumptions)
    assert kvplan.fit("Qwen/Qwen2.5-14B-Instruct", "L40S", max_model_len=8192, cpu_offload_gb=4, vllm_version="0.8.2").rules.engine == "v0"
    from kvplan.deploy import render_files, spec_from_plan
    from kvplan.simulate import StepModel

    assert "--cpu-offload-gb 4" in render_files(spec_from_plan(off))["serve.sh"]
    with pytest.raises(InputError) as e:
        StepModel.from_plan(off)  # streamed weights are not in the step-time model: said, not ignored
    assert e.value.field == "--cpu-offload-gb"
    with pytest.raises(InputError):
        kvplan.fit("Qwen/Qwen2.5-14B-Instruct", "L40S", cpu_offload_gb=-1)


def test_cpu_offload_moves_only_decoder_layers():
    # vLLM offloads the parameters of the modules make_layers builds (models/utils.py maybe_offload_to_cpu, 0.10.2;
    # offloader/uva.py UVAOffloader via wrap_modules, 0.21.0, 0.33.0): a budget beyond them leaves the embedding and
    # lm_head (2 x 151,936 x 4,096 x 2 B for Qwen3-8B) on the GPU, where kvplan used to move everything
    p = kvplan.fit("Qwen/Qwen3-8B", "RTX 3090", cpu_offload_gb=30)
    assert p.weights_bytes >= 2 * 151936 * 4096 * 2
    assert "Model loading took 2.33 GiB memory and … seconds" in p.vllm_log
    said = next(a for a in p.assumptions if a.startswith("--cpu-offload-gb 30"))
    assert "all 12.94 GiB of its decoder layers" in said and "2.33 GiB stay on the GPU" in said
    # within the layers the budget is what moves
    base = kvplan.fit("Qwen/Qwen3-8B", "RTX 3090")
    assert base.weights_bytes - kvplan.fit("Qwen/Qwen3-8B", "RTX 3090", cpu_offload_gb=4).weights_bytes == 4 * GIB
    # from 0.30 a multimodal tower is wrapped too (models/interfaces.py _mark_tower_model; 0.28.0 does not)
    old, new = (kvplan.fit("google/gemma-3-4b-it", "L40S", cpu_offload_gb=40, max_model_len=8192, vllm_version=v)
                for v in ("0.28.0", "0.33.0"))
    assert old.weights_bytes - new.weights_bytes > 0.5 * GIB  # the SigLIP tower (~0.8 GiB) moves too
    assert any("decoder layers and vision tower" in a for a in new.assumptions)


def test_lora_slots_are_taken_from_the_budget_as_vllm_allocates_them():
    # vllm/lora in the 0.33 wheel: every supported layer, the embedding and lm_head get max_loras slots of
    # max_lora_rank at startup; Llama-3.1-8B bf16, 4 x rank 64 = 1,477,705,728 B
    from kvplan.errors import UndeterminedError

    kw = dict(max_model_len=8192, fixes=False)
    base = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", **kw)
    lora = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", enable_lora=True, max_loras=4, max_lora_rank=64, **kw)
    assert lora.weights_bytes - base.weights_bytes == 1_477_705_728
    old = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", enable_lora=True, max_loras=4, max_lora_rank=64,
                     vllm_version="0.10.2", **kw)
    old_base = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", vllm_version="0.10.2", **kw)
    assert old.weights_bytes - old_base.weights_bytes > 1_477_705_728  # the 256-row extra vocabulary up to 0.11
    assert kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", enable_lora=True, vllm_version="0.8.2", **kw).rules.engine == "v0"
    with pytest.raises(InputError):
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_lora_rank=24, enable_lora=True)
    with pytest.raises(UndeterminedError):  # MLA layers' LoRA slots are not counted: said, not guessed
        kvplan.fit("deepseek-ai/DeepSeek-V2-Lite", "H100", enable_lora=True)
    from kvplan.deploy import render_files, spec_from_plan

    serve = render_files(spec_from_plan(lora))["serve.sh"]
    assert "  --enable-lora\n" in serve and "  --max-loras 4\n" in serve and "  --max-lora-rank 64\n" in serve
    # the served model name is still the model's (a loop over the LoRA flags once overwrote it)
    assert spec_from_plan(lora).served_model_name == spec_from_plan(kvplan.fit(lora.model, "H100", fixes=False)).served_model_name


def render_files_for(p):
    from kvplan.deploy import render_files, spec_from_plan

    return render_files(spec_from_plan(p))["serve.sh"]


def test_multimodal_profile_pass_is_charged_and_follows_limit_mm_per_prompt():
    # vLLM encodes the largest allowed items before the text dummy run and keeps their outputs (and, up to 0.32, the
    # pixels) through it. Qwen3-VL-30B-A3B on two H100s, vLLM 0.12.0: the startup logged a 37.23 GiB pool
    # (tests/data/calibration.jsonl qwen3-vl-30b-a3b-instruct-h100-udef-tp2); without the encoder pass kvplan said 40.95
    kw = dict(tensor_parallel_size=2, max_model_len=65536, max_num_seqs=256, max_num_batched_tokens=8192,
              vllm_version="0.12.0", fixes=False)
    p = kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "H100", **kw)
    assert abs(p.kv_cache_bytes / GIB - 37.23) / 37.23 < 0.04
    note = next(a for a in p.assumptions if a.startswith("multimodal"))
    assert "12,288 tokens" in note and "(padded)" in note  # 0.11-0.12 profile a video padded to 12.5 x its tokens
    off = kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "H100", limit_mm_per_prompt='{"image": 0, "video": 0}', **kw)
    assert off.kv_cache_bytes - p.kv_cache_bytes > 2 * GIB and any("encodes none" in a for a in off.assumptions)
    # text-only mode also leaves the vision tower unloaded (0.10.1 for Qwen-VL; every tower from 0.15, and
    # --language-model-only from 0.17 says the same)
    # (the tower: 27 blocks of 1152 + four 4608-wide patch mergers + the position table = 538.6M parameters, 0.50 GiB
    # per rank at TP 2; the published model is 31.07B parameters, and kvplan counts 31.07B), nor the deepstack buffers
    # that come with it (3 levels x 8,192 tokens x 2,048 x 2 B)
    assert 0.45 * GIB < p.weights_bytes - off.weights_bytes - 3 * 8192 * 2048 * 2 < 0.55 * GIB
    lm_only = kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "H100", language_model_only=True, **{**kw, "vllm_version": "0.19.0"})
    assert lm_only.weights_bytes == kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "H100", limit_mm_per_prompt="image=0,video=0",
                                               **{**kw, "vllm_version": "0.19.0"}).weights_bytes < off.weights_bytes + 1
    assert "--language-model-only" in render_files_for(lm_only)
    images = kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "H100", limit_mm_per_prompt="image=2,video=0", **kw)
    assert off.kv_cache_bytes > images.kv_cache_bytes > p.kv_cache_bytes  # one 16,384-token image, no padded video
    from kvplan.deploy import render_files, spec_from_plan

    assert '--limit-mm-per-prompt \'{"image":2,"video":0}\'' in render_files(spec_from_plan(
        kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "H100", limit_mm_per_prompt={"image": 2, "video": 0}, **kw)))["serve.sh"]
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "H100", limit_mm_per_prompt="image=two")
    assert e.value.field == "--limit-mm-per-prompt"
    # a text model has no encoder pass; a tower kvplan does not compute is said, not guessed
    assert not any(a.startswith("multimodal") for a in kvplan.fit("Qwen/Qwen3-8B", "H100", fixes=False).assumptions)
    # Mistral-Small-3.1's Pixtral tower: two 1,540 x 1,540 images (55 x 55 = 3,025 image features each; the budget
    # counts embeddings, not the row breaks) fill the 8,192-token budget, as its 0.19.0 log says ('profiled with 2
    # image items'); 2 x 110^2 patches
    g = kvplan.fit("mistralai/Mistral-Small-3.1-24B-Instruct-2503", "H100", max_model_len=8192, max_num_batched_tokens=8192,
                   vllm_version="0.19.0", fixes=False)
    note = next(a for a in g.assumptions if a.startswith("multimodal"))
    assert "2 item(s) of 3,025 tokens each (24,200 patches in all)" in note and "1.09 GiB patches x patches mask" in note
    # a tower kvplan does not compute is said, not guessed: Gemma 4's
    g4v = kvplan.fit("google/gemma-4-26B-A4B", "H100", max_model_len=8192, fixes=False)
    assert any("is not modelled" in a for a in g4v.assumptions if a.startswith("multimodal"))
    # Gemma 3: 32 images of 256 tokens fill an 8,192-token budget, 131,072 SigLIP patches in one pass; with 256
    # sequences (a small sampler peak) the encoder is the profile's peak
    g3 = kvplan.fit("google/gemma-3-27b-it", "H200", max_model_len=8192, max_num_batched_tokens=8192, max_num_seqs=256,
                    fixes=False)
    note = next(a for a in g3.assumptions if a.startswith("multimodal"))
    assert "32 item(s) of 256 tokens each (131,072 patches in all)" in note
    assert g3.activation_peak_bytes > kvplan.fit("google/gemma-3-27b-it", "H200", max_model_len=8192, max_num_batched_tokens=8192,
                                                 max_num_seqs=256, limit_mm_per_prompt='{"image": 0}',
                                                 fixes=False).activation_peak_bytes + GIB
    # the shared copy of gemma-3-4b-it's config has no vision_config; the catalog completes it from cited
    # transcriptions (tools/build_catalog.py), so its SigLIP tower is counted and profiled like the 27B's
    g4 = kvplan.fit("google/gemma-3-4b-it", "L4", max_model_len=8192, fixes=False)
    assert any(a.startswith("multimodal: the profile run encodes") for a in g4.assumptions)
    # a config without one: transformers' defaults are not the checkpoint's, so the pass is said, not computed
    import json
    import tempfile
    from pathlib import Path

    from kvplan.resolve import catalog_lookup

    bare = {k: v for k, v in catalog_lookup("google/gemma-3-4b-it")["config"].items() if k != "vision_config"}
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "config.json").write_text(json.dumps(bare))
        local = kvplan.fit(d, "L4", max_model_len=8192, fixes=False)
    assert any("gives no vision_config" in a for a in local.assumptions)
    assert g4.weights_bytes - local.weights_bytes > 0.5 * GIB  # the 27-layer SigLIP tower, not a default 12-layer one


def test_multimodal_pixels_reach_the_gpu_in_the_model_dtype_from_0_9_0():
    # vLLM 0.9.0 casts floating-point multimodal inputs to the model's dtype on their way to the GPU
    # (MultiModalKwargs.as_kwargs(dtype=...) in the V1 profile run; 0.9.1 moves the cast into the processor, PR
    # #18862; 0.8.5 keeps the processors' float32): the profiled image's pixels, held through the text dummy run, are
    # 2 B a value in bf16. Qwen3.5-27B, one 16,384-token image = 65,536 patches of 3 x 2 x 16 x 16 values.
    from dataclasses import replace

    from kvplan.plan import _multimodal_profile_bytes

    model = resolve_model("Qwen/Qwen3.5-27B")
    args = EngineArgs(tensor_parallel_size=4, max_model_len=32768, max_num_seqs=256, max_num_batched_tokens=2048,
                      dtype="bfloat16")
    pixels = 65536 * 1536
    old = _multimodal_profile_bytes(model, args, rules_for("0.8.5"), 0)
    for version in ("0.9.0", "0.9.0.1", "0.9.1"):
        new = _multimodal_profile_bytes(model, args, rules_for(version), 0)
        assert f"pixels {4 * pixels / GIB:.2f} GiB" in old[1] and f"pixels {2 * pixels / GIB:.2f} GiB" in new[1]
    f32 = _multimodal_profile_bytes(model, replace(args, dtype="float32"), rules_for("0.9.1"), 0)
    assert f"pixels {4 * pixels / GIB:.2f} GiB" in f32[1]
    # with a sampler peak above the encoder's, the profile adds the cached outputs and the pixels to it: 2 B x pixels
    # less than before the cast
    text = 2 * GIB
    assert (_multimodal_profile_bytes(model, args, rules_for("0.8.5"), text)[0]
            - _multimodal_profile_bytes(model, args, rules_for("0.9.0"), text)[0]) == 2 * pixels


def _extra_record_model(record_id: str, tmp_path):
    """A record of tests/data/extra_records.jsonl and its config resolved as a model (through a config.json file)."""
    from pathlib import Path

    records = Path(__file__).parent / "data" / "extra_records.jsonl"
    rec = next(json.loads(line) for line in records.read_text().splitlines() if f'"{record_id}"' in line)
    (tmp_path / "config.json").write_text(json.dumps(rec["model"]["config"]))
    return rec, resolve_model(str(tmp_path / "config.json"))


def test_qwen2_5_vl_profile_pixels_by_release_and_the_l4_startups(tmp_path):
    # Qwen2.5-VL-7B, one 3,584 x 3,584 image (max_pixels 12,845,056) = 65,536 patches of 3 x 2 x 14 x 14 values.
    # 0.8.5: float32 pixels on the GPU plus the bf16 copy _process_image_input holds through the tower (6 B a value);
    # 0.9.0.1: bf16 pixels only (as_kwargs casts them; .type(self.visual.dtype) is then a no-op)

    from kvplan.plan import _multimodal_profile_bytes

    rec, model = _extra_record_model("qwen2.5-vl-7b-instruct-l4-udef-tp1-l2k", tmp_path)
    args = EngineArgs(tensor_parallel_size=1, max_model_len=2048, max_num_seqs=256, max_num_batched_tokens=2048,
                      dtype="bfloat16")
    values = 65536 * 1176
    enc = {}
    for version in ("0.8.5", "0.9.0.1"):
        note = _multimodal_profile_bytes(model, args, rules_for(version), 0)[1]
        assert "1 item(s) of 16,384 tokens each (65,536 patches in all)" in note
        enc[version] = float(note.split("encoder peak ")[1].split(" GiB")[0])
    assert abs((enc["0.8.5"] - enc["0.9.0.1"]) - 4 * values / GIB) < 0.011
    # the two L4 startups of 0.9.0.1 (tests/data/extra_records.jsonl, the OpenShift AI demo logs): "Available KV cache
    # memory: 1.81 GiB" at TP 1, max_model_len 2048, and 10.04 GiB per rank at TP 2, max_model_len 8192; with float32
    # pixels kvplan said 1.62 and 9.75 GiB
    for tp, length, logged in ((1, 2048, 1.81), (2, 8192, 10.04)):
        p = kvplan.fit(model, "L4", tensor_parallel_size=tp, max_model_len=length, vllm_version="0.9.0.1", fixes=False)
        assert -0.03 < (p.kv_cache_bytes / GIB - logged) / logged < 0


def test_v1_profile_item_count_by_release():
    # how many items the V1 profile run encodes (rules.mm_profile_items): budget max(max_num_batched_tokens, T).
    # LLaVA-1.5 (T = 576) at 8,192 batched tokens: cdiv 15 up to 0.9.x, 8192 // 576 = 14 from 0.10.0
    from kvplan.plan import _multimodal_profile_bytes

    model = resolve_model("llava-hf/llava-1.5-7b-hf")
    args = EngineArgs(tensor_parallel_size=1, max_model_len=4096, max_num_seqs=256, max_num_batched_tokens=8192,
                      dtype="float16")
    assert "15 item(s) of 576 tokens" in _multimodal_profile_bytes(model, args, rules_for("0.9.2"), 0)[1]
    assert "14 item(s) of 576 tokens" in _multimodal_profile_bytes(model, args, rules_for("0.10.0"), 0)[1]
    # a max_model_len below one item: from 0.10.1 a prompt still holds one (max(1, min(limit, max_model_len // T)))
    short = EngineArgs(tensor_parallel_size=1, max_model_len=512, max_num_seqs=4, max_num_batched_tokens=8192,
                       dtype="float16")
    assert "4 item(s) of 576 tokens" in _multimodal_profile_bytes(model, short, rules_for("0.10.1"), 0)[1]
    # the same four RTX 3090s at TP 4, --enforce-eager, 0.19.0: three startups logged pools of 7.00 GiB (utilisation
    # 0.90), 7.47 GiB (0.92) and 7.56 GiB (0.92, max_num_seqs 1) (tests/data/blind_records.jsonl); with float32 pixels
    # kvplan said 6.54, 7.01 and 7.13 GiB
    kw = dict(tensor_parallel_size=4, enforce_eager=True, vllm_version="0.19.0", fixes=False)
    for util, seqs, length, logged in ((0.9, None, 32768, 7.00), (0.92, None, 32768, 7.47), (0.92, 1, 50000, 7.56)):
        p = kvplan.fit("Qwen/Qwen3.5-27B", "RTX 3090", gpu_memory_utilization=util, max_model_len=length,
                       **({"max_num_seqs": seqs} if seqs else {}), **kw)
        assert -0.045 < (p.kv_cache_bytes / GIB - logged) / logged < 0


def test_deepseek_v32_sparse_mla_keeps_indexer_keys_beside_the_latent(tmp_path):
    # DeepSeek-V3.2 is DeepSeek-V3's MLA plus a lightning indexer (index_head_dim 128, index_n_heads 64, index_topk 2048
    # in its config.json); vLLM keeps 128 fp8 + 4 B of keys per token and layer beside the latent, both in 64-token
    # blocks and so one group (read in the 0.11-0.33 wheels: models/deepseek_v2.py, v1/core/kv_cache_utils.py)
    from kvplan.weights import weights_per_rank

    v3 = resolve_model("deepseek-ai/DeepSeek-V3")
    cfg = {**v3.raw_config, "architectures": ["DeepseekV32ForCausalLM"], "model_type": "deepseek_v32",
           "index_head_dim": 128, "index_n_heads": 64, "index_topk": 2048}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    v32 = resolve_model(str(tmp_path))
    kw = dict(tensor_parallel_size=8, max_model_len=163840, fixes=False)
    bf16 = kvplan.fit(v32, "H200", vllm_version="0.12.0", **kw)
    assert bf16.kv_bytes_per_token == 61 * (576 * 2 + 132) and bf16.block_size == 64 and len(bf16.groups) == 1
    assert bf16.bytes_per_block == 61 * 64 * (576 * 2 + 132) and bf16.blocks_for_tokens(163840) == 2560
    fp8 = kvplan.fit(v32, "H200", vllm_version="0.12.0", kv_cache_dtype="fp8", **kw)
    assert fp8.kv_bytes_per_token == 61 * (656 + 132)  # fp8_ds_mla: 512 fp8 + 16 scale + 128 bf16 rope
    assert kvplan.fit(v32, "H200", vllm_version="0.11.0", **kw).kv_bytes_per_token == 61 * (656 + 132)  # 0.11.0: always
    assert kvplan.fit(v32, "B200", vllm_version="0.33.0", kv_cache_dtype="fp8", **kw).kv_bytes_per_token == 61 * (576 + 132)
    assert kvplan.fit(v3, "H200", vllm_version="0.12.0", **kw).kv_bytes_per_token == 61 * 576 * 2  # V3: no indexer
    # the indexer's weights, replicated on every rank: about 0.8 GiB more per rank than V3
    extra = weights_per_rank(v32, tp=8).bytes - weights_per_rank(v3, tp=8).bytes
    assert 0.75 * GIB < extra < 0.9 * GIB
    # its buffers in the profile run grow with max_model_len; FlashMLA's fp8 prefill buffers add to them
    new_bf16 = kvplan.fit(v32, "H200", vllm_version="0.33.0", **kw)
    new_fp8 = kvplan.fit(v32, "H200", vllm_version="0.33.0", kv_cache_dtype="fp8", **kw)
    assert new_fp8.activation_peak_bytes > new_bf16.activation_peak_bytes
    assert any(a.startswith("sparse MLA (DeepSeek-V3.2): indexer buffers") for a in new_bf16.assumptions)
    with pytest.raises(InputError):
        kvplan.fit(v32, "H200", vllm_version="0.10.2", **kw)


def test_weights_load_under_a_20_mib_split_limit_from_0_21():
    # vLLM >= 0.21 loads weights under a scoped 20 MiB max_split_size (gpu_worker.py _scoped_allocator_max_split):
    # a tensor of 20 MiB or more takes a 2 MiB-rounded block of its own, and "Model loading took" counts the block.
    # Qwen2.5-1.5B: 28 x (gate_up 52.5 MiB + 1.5, down 26.25 MiB + 1.75) + embedding 445.125 MiB + 0.875 = 91.9 MiB;
    # vLLM 0.30 and 0.31 logged 2.98 GiB (tests/data/extra_records.jsonl) for 2.88 GiB of parameters and rotary cache.
    # Before 0.21 the allocator splits off a rest of more than 1 MiB, so only the embedding's 0.875 MiB stays
    from kvplan.weights import allocator_rounding_bytes
    kw = dict(max_model_len=4096, fixes=False)
    old = kvplan.fit("Qwen/Qwen2.5-1.5B-Instruct", "T4", vllm_version="0.20.0", **kw)
    new = kvplan.fit("Qwen/Qwen2.5-1.5B-Instruct", "T4", vllm_version="0.30.0", **kw)
    assert new.weights_bytes - old.weights_bytes == 28 * (1.5 + 1.75) * 2 ** 20
    assert allocator_rounding_bytes(resolve_model("Qwen/Qwen2.5-1.5B-Instruct"), split_limit=False) == 0.875 * 2 ** 20
    assert round(new.weights_bytes / GIB, 2) == 2.97
    # Llama-3.1-8B's tensors are all whole multiples of 2 MiB: nothing to round
    assert (kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", vllm_version="0.30.0", **kw).weights_bytes
            == kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", vllm_version="0.20.0", **kw).weights_bytes)


def test_qwen35_rotary_cache_holds_four_times_the_positions_from_0_7_2():
    # get_rope builds an MRotaryEmbedding for rope parameters with an mrope_section, whose cos/sin cache holds
    # 4 x max_position_embeddings positions (rotary_embedding/mrope.py cache_max_position_num, read in the 0.7.2,
    # 0.9.0.1, 0.19.0 and 0.27.1 wheels; 0.7.1 caches max_position_embeddings): Qwen3.5-27B, 262,144 positions of
    # rotary_dim 64 (partial_rotary_factor 0.25 of 256) in bfloat16
    from kvplan.weights import weights_per_rank
    m = resolve_model("Qwen/Qwen3.5-27B")
    assert weights_per_rank(m, tp=4).rotary_bytes == 4 * 262_144 * 64 * 2
    assert weights_per_rank(m, tp=4, mrope_cache_factor=1).rotary_bytes == 262_144 * 64 * 2
    assert (rules_for("0.7.1").mrope_cache_factor, rules_for("0.7.2").mrope_cache_factor) == (1, 4)
    # a plain rotary embedding is unchanged: Llama-3.1-8B's 131,072 x 128 x 2 B
    assert weights_per_rank(resolve_model("meta-llama/Llama-3.1-8B-Instruct")).rotary_bytes == 131_072 * 128 * 2


def test_qwen3_vl_catalog_configs_carry_the_checkpoints_mrope():
    # The shared Qwen3-VL copies lacked text_config.rope_scaling; the catalog completes it from its sources
    # (tools/build_catalog.py CONFIG_COMPLETIONS), so the rotary cache is the multimodal one: 4 x 262,144 positions
    # x 128 x 2 B = 256 MiB, not 64 MiB. The RTX 3090 TP4 startup (vLLM 0.11.0) logged 14.7708 GiB of weights:
    # 14.736 GiB with it, 14.549 GiB without.
    from kvplan.weights import weights_per_rank
    for model_id in ("Qwen/Qwen3-VL-30B-A3B-Instruct", "Qwen/Qwen3-VL-2B-Instruct"):
        m = resolve_model(model_id)
        assert m.text_config["rope_parameters"]["mrope_section"] == [24, 20, 20]
        assert weights_per_rank(m, tp=4).rotary_bytes == 4 * 262_144 * 128 * 2
    p = kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "RTX 3090", tensor_parallel_size=4, max_model_len=65536,
                   gpu_memory_utilization=0.9, vllm_version="0.11.0", detect_gpu=False, fixes=False)
    assert abs(p.weights_bytes / GIB - 14.7708) < 0.02
    assert any("excerpt" in a and "text_config.rope_scaling" in a for a in p.assumptions)


def test_qwen3_vl_deepstack_buffers_are_in_the_loaded_weights():
    # models/qwen3_vl.py allocates one max_num_batched_tokens x hidden_size buffer per deepstack level while the
    # model is built (0.11.0-0.33.0 wheels): 3 x 8,192 x 2,048 x 2 B = 96 MiB on an H100 (default token budget 8,192).
    # Two H100s, vLLM 0.12.0, logged "Model loading took 29.3115 GiB" (vllm_log_excerpts, VideoCuttingAgent).
    from kvplan.plan import EngineArgs, deepstack_buffer_bytes
    from kvplan.versions import rules_for
    kw = dict(tensor_parallel_size=2, max_model_len=65536, vllm_version="0.12.0", detect_gpu=False, fixes=False)
    p = kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "H100", **kw)
    assert abs(p.weights_bytes / GIB - 29.3115) < 0.02
    assert any("deepstack buffers" in a and "96 MiB" in a for a in p.assumptions)
    m, rules = resolve_model("Qwen/Qwen3-VL-30B-A3B-Instruct"), rules_for("0.12.0")
    args = EngineArgs(max_model_len=65536, max_num_batched_tokens=2048)
    assert deepstack_buffer_bytes(m, args, rules, text_only=False) == 3 * 2048 * 2048 * 2
    assert deepstack_buffer_bytes(m, args, rules, text_only=True) == 0  # no vision tower built
    # Qwen3.5 lists no deepstack levels
    assert deepstack_buffer_bytes(resolve_model("Qwen/Qwen3.5-27B"), args, rules, text_only=False) == 0


def test_qwen3_vl_profile_pass_does_not_grow_with_max_model_len():
    # 0.11.0 qwen3_vl.py: the dummy video has min(frames whose tokens fit max_model_len, 24,576) frames resized into
    # 25,165,824 pixels, i.e. 24,576 frames of 32 x 32 (12,288 tokens, budget 12.5 x) for any max_model_len from about
    # 16K up, so the A100 start at 262,144 (logged 8.04 GiB) profiles what a 65,536 start does; only the rotary cache
    # (max_position_embeddings, not max_model_len) and the KV need differ
    kw = dict(vllm_version="0.11.0", detect_gpu=False, fixes=False)
    long = kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "A100 80GB", max_model_len=262144, **kw)
    short = kvplan.fit("Qwen/Qwen3-VL-30B-A3B-Instruct", "A100 80GB", max_model_len=65536, **kw)
    assert long.activation_peak_bytes == short.activation_peak_bytes and long.weights_bytes == short.weights_bytes
    assert not long.fits and 8.04 < long.kv_cache_bytes / GIB < 9.0


def test_qwen3_vl_and_qwen35_mrope_cache_holds_max_position_from_0_32():
    # 0.32 models/qwen3_vl.py mrope_positions_factor: Qwen3-VL and Qwen3.5/3.6 decoder layers build their rotary
    # cache with 1 x max_position_embeddings (4 x only with video pruning); other mrope models keep 4 x
    from kvplan.plan import mrope_cache_factor
    from kvplan.versions import rules_for
    for model_id in ("Qwen/Qwen3-VL-30B-A3B-Instruct", "Qwen/Qwen3.5-27B", "Qwen/Qwen3.6-35B-A3B"):
        m = resolve_model(model_id)
        assert [mrope_cache_factor(m, rules_for(v)) for v in ("0.7.1", "0.31.0", "0.32.0", "0.33.0")] == [1, 4, 1, 1]
    kw = dict(max_model_len=8192, detect_gpu=False, fixes=False)
    old = kvplan.fit("Qwen/Qwen3.5-27B", "H100", vllm_version="0.31.0", **kw)
    new = kvplan.fit("Qwen/Qwen3.5-27B", "H100", vllm_version="0.32.0", **kw)
    assert old.weights_bytes - new.weights_bytes == 3 * 262_144 * 64 * 2


def test_rope_params_reads_rope_scaling_or_rope_parameters():
    # a transformers 4 checkpoint writes rope_scaling; transformers 5 moves it to rope_parameters (adding
    # rope_theta); the dict naming an mrope_section wins, also inside the per-layer-type form
    from kvplan.resolve import rope_params
    mrope = {"mrope_interleaved": True, "mrope_section": [24, 20, 20], "rope_type": "default"}
    assert rope_params({"rope_scaling": mrope}) == mrope
    assert rope_params({"rope_parameters": {**mrope, "rope_theta": 5e6}})["mrope_section"] == [24, 20, 20]
    assert rope_params({"rope_scaling": None, "rope_parameters": mrope}) == mrope
    assert rope_params({"rope_scaling": {"rope_type": "default"}, "rope_parameters": mrope}) == mrope
    assert rope_params({"rope_parameters": {"full_attention": mrope, "sliding_attention": {"rope_type": "default"}}}) == mrope
    per_type = {"full_attention": {"rope_type": "linear", "factor": 8.0}, "sliding_attention": {"rope_type": "default"}}
    assert rope_params({"rope_parameters": per_type}) == per_type
    assert rope_params({}) == {}


def test_gated_deltanet_layers_and_the_output_gate_are_in_the_allocator_rounding():
    # Qwen3.5/3.6-27B at TP2 under 0.21+'s 20 MiB split limit: every one of the 64 layers has an MLP (48 Gated DeltaNet
    # layers too), whose down_proj of 8,704 x 5,120 x 2 B = 85 MiB takes an 86 MiB block; the embedding and lm_head
    # (1,212.5 MiB each) 1.5 MiB each. qkv_proj carries the output gate: (2 x 3,072 + 2 x 512) x 5,120 x 2 B = 70 MiB,
    # a whole multiple of 2 MiB, like in_proj_qkvz (80 MiB), out_proj and o_proj (30 MiB)
    from kvplan.weights import allocator_rounding_bytes
    m = resolve_model("Qwen/Qwen3.5-27B")
    assert allocator_rounding_bytes(m, tp=2) == (64 * 1 + 2 * 1.5) * 2 ** 20
    # vLLM 0.27.1 logged 25.69 GiB per rank for Qwen3.6-27B at TP2 (tests/data/extra_records.jsonl); the 128 MiB
    # rotary cache and the 67 MiB of rounding bring the count from 25.53 to 25.67
    p = kvplan.fit(m, "A100-80GB", tensor_parallel_size=2, max_model_len=65536, vllm_version="0.27.1", fixes=False)
    assert abs(p.weights_bytes / GIB - 25.69) < 0.03


def test_the_caching_allocator_keeps_a_rest_of_1_mib_or_less_in_every_release():
    # PyTorch's caching allocator rounds a request of 10 MiB or more up to a 2 MiB segment and splits off the rest only
    # when it is more than 1 MiB (CUDACachingAllocator.cpp get_allocation_size, should_split): the rest is allocated.
    # Qwen3.5-27B at TP4: gate_up_proj 85 MiB on all 64 layers, qkv_proj 35 MiB and o_proj 15 MiB on the 16 attention
    # layers, out_proj 15 MiB on the 48 Gated DeltaNet layers keep 1 MiB each; down_proj (42.5 MiB, rest 1.5) does not
    from kvplan.weights import allocator_rounding_bytes
    m = resolve_model("Qwen/Qwen3.5-27B")
    assert allocator_rounding_bytes(m, tp=4, split_limit=False) == (64 + 16 + 16 + 48) * 2 ** 20
    # vLLM 0.19.0 logged 13.01 GiB per rank (tests/data/blind_records.jsonl); without the rests kvplan said 12.86
    p = kvplan.fit(m, "RTX 3090", tensor_parallel_size=4, max_model_len=32768, vllm_version="0.19.0", fixes=False)
    assert abs(p.weights_bytes / GIB - 13.01) < 0.01
    # Qwen2.5-14B on one GPU: 48 down_proj of 135 MiB, the embedding and lm_head of 1,485 MiB keep 1 MiB each (50 MiB);
    # 0.7.3 logged 27.5681 GiB, 27.5192 counted without
    q = kvplan.fit("Qwen/Qwen2.5-14B-Instruct", "A100-80GB", max_model_len=4096, vllm_version="0.7.3", fixes=False)
    assert abs(q.weights_bytes / GIB - 27.5681) < 0.001
    # a rest of more than 1 MiB is split off and free: Llama-3.1-8B's tensors are whole multiples of 2 MiB anyway
    assert allocator_rounding_bytes(resolve_model("meta-llama/Llama-3.1-8B-Instruct"), split_limit=False) == 0


def test_model_runner_v2_and_its_cuda_graph_estimate_follow_the_release():
    # config/vllm.py use_v2_model_runner: dense generate models from 0.25 (Qwen3 from 0.22, Llama from 0.23), every
    # model from 0.29. Its profile_cudagraph_memory returns 0 up to 0.28; from 0.29 it captures for real into a
    # throwaway pool and extrapolates FULL graphs at >= 1 MiB each. The V1 runner extrapolates from two captures.
    from kvplan.plan import model_runner

    def fit(model, version, **kw):
        return kvplan.fit(model, "T4", vllm_version=version, max_model_len=4096, fixes=False, **kw)

    assert model_runner(fit("Qwen/Qwen2.5-1.5B-Instruct", "0.24.0").model, fit("Qwen/Qwen2.5-1.5B-Instruct", "0.24.0").args,
                        fit("Qwen/Qwen2.5-1.5B-Instruct", "0.24.0").rules) == "v1"
    p26, p30 = fit("Qwen/Qwen2.5-1.5B-Instruct", "0.26.0"), fit("Qwen/Qwen2.5-1.5B-Instruct", "0.30.0")
    assert model_runner(p26.model, p26.args, p26.rules) == "v2" and p26.cudagraph_bytes == 0
    # 0.30 on a T4 (256 sequences: 51 capture sizes, 35 FULL decode graphs): the profile's capture, 0.25 MiB x 28
    # layers x 51 sizes (calibration.py MRV2_G_*), + 33 further FULL graphs x 1 MiB = 390 MiB, 0.38 GiB; vLLM 0.30.0
    # logged 'CUDA graph pool memory: 0.15 GiB (actual), 0.34 GiB (estimated)' for this model on a T4
    # (tests/data/extra_records.jsonl), the V1 runner's extrapolation would charge 0.65
    from kvplan.calibration import MRV2_G_CONST, MRV2_G_PER
    assert p30.cudagraph_bytes == pytest.approx(MRV2_G_CONST + MRV2_G_PER * 28 * 51 + 33 * 1024 ** 2, abs=2)
    assert 0.30 * GIB < p30.cudagraph_bytes < 0.40 * GIB
    moe = fit("Qwen/Qwen3-30B-A3B", "0.26.0", tensor_parallel_size=1, kv_cache_dtype="fp8")
    assert model_runner(moe.model, moe.args, moe.rules) == "v1" and moe.cudagraph_bytes > 0.5 * GIB  # MoE: V1 until 0.29
    ngram = fit("Qwen/Qwen2.5-1.5B-Instruct", "0.30.0", speculative_config='{"method": "ngram", "num_speculative_tokens": 3}')
    assert model_runner(ngram.model, ngram.args, ngram.rules) == "v1"  # n-gram drafting is not in model runner v2


def test_qwen25_vl_says_its_video_profile_is_not_computed(tmp_path):
    # qwen2_vl.py get_mm_max_tokens_per_item: from 0.11 a video of up to 14 frames sized from max_model_len outnumbers
    # the 16,384-token image (114,688 tokens at the 128K default); its frames come from the HF video processor
    cfg = {"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl", "hidden_size": 3584,
           "intermediate_size": 18944, "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
           "vocab_size": 152064, "max_position_embeddings": 128000, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
           "vision_config": {"model_type": "qwen2_5_vl", "hidden_size": 1280, "intermediate_size": 3420, "depth": 32,
                             "num_heads": 16, "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2,
                             "out_hidden_size": 3584}}
    (tmp_path / "config.json").write_text(json.dumps(cfg))

    def note(**kw):
        p = kvplan.fit(str(tmp_path), "H100", vllm_version="0.19.0", fixes=False, **kw)
        return next(a for a in p.assumptions if a.startswith("multimodal"))

    assert "16,384 tokens each (65,536 patches in all)" in note() and "video of up to 114,688 tokens" in note()
    assert "video of up to" not in note(limit_mm_per_prompt='{"video": 0}')
    assert "video of up to" not in note(max_model_len=16384)  # the video no longer outnumbers the image


def test_vllm_llm_in_python_has_its_own_default_token_budget():
    # engine/arg_utils.py (0.8-0.33): UsageContext.LLM_CLASS gets 16384 tokens where vllm serve gets 8192 (or 16384 on
    # >= 160 GiB GPUs), 8192 where serve gets 2048; the same sequence cap. V0 sizes the budget from max_model_len.
    def tokens(gpu, entry, version="0.19.0"):
        return kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu, max_model_len=16384, entrypoint=entry, vllm_version=version,
                          fixes=False).args.max_num_batched_tokens

    assert (tokens("L4", "serve"), tokens("L4", "llm")) == (2048, 8192)
    assert (tokens("H100", "serve"), tokens("H100", "llm")) == (8192, 16384)
    assert tokens("B200", "llm", "0.33.0") == tokens("B200", "serve", "0.33.0") == 16384
    assert tokens("L4", "llm", "0.6.3") == tokens("L4", "serve", "0.6.3")  # V0: max(max_model_len, 2048) either way
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=16384, entrypoint="llm", fixes=False)
    assert p.activation_peak_bytes > kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=16384,
                                                fixes=False).activation_peak_bytes
    assert any("vllm.LLM default" in a for a in p.assumptions)
    with pytest.raises(InputError) as e:
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", entrypoint="python")
    assert e.value.field == "--entrypoint"


def test_v0_profiles_as_many_dummy_images_as_the_token_budget_holds():
    # V0's profile run (worker/model_runner.py): max(1, min(max_num_seqs, max_num_batched_tokens // 576)) sequences of
    # one 576-token LLaVA-1.5 image each, encoded inside the forward
    import re

    def mm_note(**kw):
        p = kvplan.fit("llava-hf/llava-1.5-7b-hf", "A100", vllm_version="0.6.6", max_model_len=4096, **kw)
        assert p.rules.engine == "v0"
        return next(a for a in p.assumptions if a.startswith("multimodal"))

    assert re.search(r"encodes 7 item\(s\) of 576 tokens each \(4,039 patches in all\)", mm_note())  # 4096 // 576
    assert re.search(r"encodes 14 item\(s\)", mm_note(max_num_batched_tokens=8192))
    assert re.search(r"encodes 2 item\(s\)", mm_note(max_num_batched_tokens=8192, max_num_seqs=2))
    assert re.search(r"encodes 1 item\(s\)", mm_note(max_num_batched_tokens=4096, limit_mm_per_prompt='{"image": 1}',
                                                    max_num_seqs=1))


def test_up_to_0_13_the_fit_check_charges_window_layers_their_window_even_when_they_are_held_as_full():
    # vLLM 0.8.3-0.13 run check_enough_kv_cache_memory on each layer's own spec and only then turn window layers into
    # full-attention ones (no hybrid manager before 0.9.1; the manager off for chunked local attention in 0.10.1-0.13):
    # a start passes with a pool smaller than one max-length request. Real start: Llama-4-Scout, 8 x H200, vLLM 0.12,
    # --max-model-len 5242880 started with "Maximum concurrency for 5,242,880 tokens per request: 0.75x".
    scout = kvplan.fit("meta-llama/Llama-4-Scout-17B-16E-Instruct", "H200", tensor_parallel_size=8, vllm_version="0.12.0",
                       max_model_len=5242880)
    assert scout.fits and scout.max_concurrency < 1
    assert any("fit check before it holds the window layers as full" in a for a in scout.assumptions)
    # the credit is the window's, not a free pass: the full-attention layers alone still have to fit
    small = kvplan.fit("meta-llama/Llama-4-Scout-17B-16E-Instruct", "H100", tensor_parallel_size=8, vllm_version="0.12.0",
                       max_model_len=10485760)
    assert not small.fits and "KV cache is needed" in small.error
    # from 0.14 the check runs on the groups, and the chunked layers are kept as windows again (hybrid manager on)
    later = kvplan.fit("meta-llama/Llama-4-Scout-17B-16E-Instruct", "H200", tensor_parallel_size=8, vllm_version="0.14.1",
                       max_model_len=5242880)
    assert later.fits and later.max_concurrency > 1
    # sliding windows on 0.9.0 (no hybrid manager yet): Gemma 3 starts at 128K on an L4 with 0.59x
    gemma = kvplan.fit("google/gemma-3-4b-it", "L4", vllm_version="0.9.0", max_model_len=131072)
    assert gemma.fits and gemma.max_concurrency < 1


def test_data_parallel_without_expert_parallel_slices_the_experts_over_every_rank():
    # vLLM flattens a MoE layer's tensor parallelism across the data-parallel engines when expert parallelism is off
    # (FusedMoEParallelConfig.flatten_tp_across_dp; layer.py "self.tp_size * self.dp_size" from 0.8): each of the
    # TP x DP ranks holds 1/(TP x DP) of every expert, while attention and embeddings are split by TP alone
    kw = dict(vllm_version="0.19.0", max_model_len=8192, max_num_seqs=16)  # few sequences: the forward sets the peak
    one = kvplan.fit("Qwen/Qwen3-30B-A3B", "H100", **kw)
    dp2 = kvplan.fit("Qwen/Qwen3-30B-A3B", "H100", data_parallel_size=2, **kw)
    ep2 = kvplan.fit("Qwen/Qwen3-30B-A3B", "H100", data_parallel_size=2, enable_expert_parallel=True, **kw)
    experts = dict(one.weights_by_use)["experts"]
    assert dict(dp2.weights_by_use)["experts"] == pytest.approx(experts / 2, rel=1e-3)
    assert dict(ep2.weights_by_use)["experts"] == pytest.approx(experts / 2, rel=1e-3)  # 64 of 128 whole experts
    assert dict(dp2.weights_by_use)["streamed"] == dict(one.weights_by_use)["streamed"]
    # the dispatch gathers both engines' batches, so the fused-MoE caches see 2 x T tokens; with EP at full width, but
    # TritonExperts' workspaces are max(N / 2, K) and max(N, K) wide (fused_moe.py workspace_shapes, 0.14-0.33), and
    # Qwen3-30B-A3B's hidden 2,048 is wider than its experts (768, 1,536 with the gate): the same buffers either way
    assert dp2.activation_peak_bytes > one.activation_peak_bytes
    assert ep2.activation_peak_bytes == dp2.activation_peak_bytes
    # Mixtral's experts (14,336) are wider than its hidden 4,096: whole experts under EP take wider workspaces
    mix = dict(vllm_version="0.19.0", max_model_len=8192, max_num_seqs=16, data_parallel_size=2)
    assert (kvplan.fit("mistralai/Mixtral-8x7B-v0.1", "H100", enable_expert_parallel=True, **mix).activation_peak_bytes
            > kvplan.fit("mistralai/Mixtral-8x7B-v0.1", "H100", **mix).activation_peak_bytes)


def test_fused_moe_caches_are_capped_at_the_releases_chunk():
    # fused_experts_impl sizes its caches for min(tokens, VLLM_FUSED_MOE_CHUNK_SIZE): 32768 up to 0.11, 16384 in
    # 0.12-0.17, no cap from 0.18
    def act(version, t):
        return kvplan.fit("Qwen/Qwen3-30B-A3B", "H100", vllm_version=version, max_model_len=32768, max_num_seqs=16,
                          max_num_batched_tokens=t).activation_peak_bytes
    assert act("0.12.0", 65536) == act("0.12.0", 16384)
    assert act("0.11.0", 65536) == act("0.11.0", 32768) > act("0.11.0", 16384)
    assert act("0.19.0", 65536) > act("0.19.0", 32768)


def test_v0_chunked_prefill_default_and_the_flag_set_the_profile_runs_batch():
    def tokens(gpu, version, **kw):
        return kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu, vllm_version=version, max_model_len=131072,
                          **kw).args.max_num_batched_tokens
    # V0 chunks contexts > 32K by itself (PR #6666, 0.5.4) -- on ROCm only until 0.6.5 (PR #11146)
    assert tokens("H100", "0.6.6") == 2048 and tokens("H100", "0.6.3") == 512
    assert tokens("MI300X", "0.6.3") == 512 and tokens("MI300X", "0.6.6") == 131072
    assert tokens("H100", "0.5.3") == 131072  # before the automatic chunking
    # --no-enable-chunked-prefill: V0 max(max_model_len, 2048); V1 ignores it for a generative model up to 0.11.0
    # (the chunked default), then max(len, default)
    assert tokens("H100", "0.6.6", enable_chunked_prefill=False) == 131072
    assert tokens("H100", "0.11.0", enable_chunked_prefill=False) == tokens("H100", "0.11.0") == 8192
    assert tokens("H100", "0.19.0", enable_chunked_prefill=False) == 131072
    short = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", vllm_version="0.19.0", max_model_len=4096,
                       enable_chunked_prefill=False)
    assert short.args.max_num_batched_tokens == 8192  # the default is kept when it is larger than max_model_len
    # up to 0.11.0 V1 sets enable_chunked_prefill = True for every generative model (engine/arg_utils.py
    # _set_default_args_v1 / _set_default_args): the flag leaves the L4's chunked default, 2,048, and says so;
    # 0.11.1 takes it (max(max_model_len, default)); a pooling model's flag is taken at 0.11.0 (max_model_len)
    at = {v: kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", vllm_version=v, max_model_len=16384,
                        enable_chunked_prefill=False) for v in ("0.8.5", "0.10.2", "0.11.0", "0.11.1")}
    assert [at[v].args.max_num_batched_tokens for v in at] == [2048, 2048, 2048, 16384]
    assert all(any("--no-enable-chunked-prefill has no effect" in a for a in at[v].assumptions) for v in ("0.8.5", "0.11.0"))
    assert not any("has no effect" in a for a in at["0.11.1"].assumptions)
    assert at["0.11.0"].kv_cache_bytes == kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", vllm_version="0.11.0",
                                                     max_model_len=16384).kv_cache_bytes  # the same plan as no flag
    pooled = kvplan.fit("Qwen/Qwen3-8B", "L4", vllm_version="0.11.0", max_model_len=16384, runner="pooling",
                        enable_chunked_prefill=False)
    assert pooled.args.max_num_batched_tokens == 16384
    # with the flag ignored, a budget below max_model_len is not refused (the chunked-prefill check)
    assert kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", vllm_version="0.11.0", max_model_len=16384,
                      enable_chunked_prefill=False, max_num_batched_tokens=4096).args.max_num_batched_tokens == 4096
    with pytest.raises(RefusedByVLLMError):
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", vllm_version="0.11.1", max_model_len=16384,
                   enable_chunked_prefill=False, max_num_batched_tokens=4096)
    from kvplan.deploy import render_files, spec_from_plan
    assert "--no-enable-chunked-prefill" in render_files(spec_from_plan(short))["serve.sh"]


def test_gpt_oss_on_hopper_uses_marlin_padding_before_0_12():
    # 0.10-0.11 import an external triton_kernels package a pip install lacks, so MXFP4 MoE on an H100 falls back to
    # Marlin (a 0.11.2 log: "Using Marlin backend", "Model loading took 65.9651 GiB"); 0.12 vendors the Triton
    # kernels (vllm issue 33155 at 0.14.1: "Using Triton backend", 64.38 GiB)
    old = kvplan.fit("openai/gpt-oss-120b", "H100", vllm_version="0.11.2", max_model_len=16384)
    new = kvplan.fit("openai/gpt-oss-120b", "H100", vllm_version="0.14.1", max_model_len=16384)
    assert old.weights_bytes / GIB == pytest.approx(65.97, abs=0.2)
    assert new.weights_bytes / GIB == pytest.approx(64.38, abs=0.2)
    assert any("Marlin" in a for a in old.assumptions) and any("Triton (SM90)" in a for a in new.assumptions)


@pytest.mark.parametrize("version", ["0.13.0", "0.25.1", "0.33.0"])
def test_integrated_memory_gpus_batch_defaults_follow_the_device_size_probe(version):
    # vLLM sizes its defaults by NVML's device memory, which GB10 and Jetson do not report: the query raises and the
    # small defaults apply (a 0.13 GB10 log: "Chunked prefill is enabled with max_num_batched_tokens=2048")
    # 0.33 falls back to the CUDA total where NVML has no memory query, and keeps only GB10 on the small tier: the
    # ~122 GiB Jetson Thor becomes a large device there, the 61 GiB Jetson AGX Orin stays small by its size
    for gpu in ("GB10", "NVIDIA Thor", "Jetson AGX Orin 64GB"):
        p = kvplan.fit("Qwen/Qwen3-8B", gpu, vllm_version=version, max_model_len=32768)
        large = gpu == "NVIDIA Thor" and version == "0.33.0"
        assert (p.args.max_num_batched_tokens, p.args.max_num_seqs) == ((8192, 1024) if large else (2048, 256)), gpu
    h200 = kvplan.fit("Qwen/Qwen3-8B", "H200", vllm_version=version, max_model_len=32768)
    assert h200.args.max_num_seqs == 1024


def test_environment_variables_that_move_memory_are_planned_and_the_rest_are_said_and_carried():
    scout = dict(tensor_parallel_size=8, vllm_version="0.12.0", max_model_len=8388608)
    off = kvplan.fit("meta-llama/Llama-4-Scout-17B-16E-Instruct", "H200", **scout)
    on = kvplan.fit("meta-llama/Llama-4-Scout-17B-16E-Instruct", "H200",
                    env=["VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1", "HF_HUB_OFFLINE=1"], **scout)
    # a real 0.12 start on 8 x H200 with the variable logged "Maximum concurrency for 8,388,608 tokens per request: 1.86x"
    assert off.max_concurrency < 0.5 and 1.8 < on.max_concurrency < 1.95
    assert any("HF_HUB_OFFLINE=1: not modelled" in a for a in on.assumptions)
    v0 = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", vllm_version="0.9.2", env={"VLLM_USE_V1": "0"})
    assert v0.rules.engine == "v0"
    graphs = kvplan.fit("Qwen/Qwen3-8B", "H100", vllm_version="0.21.0")
    no_graphs = kvplan.fit("Qwen/Qwen3-8B", "H100", vllm_version="0.21.0", env=["VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0"])
    assert graphs.cudagraph_bytes > 0 and no_graphs.cudagraph_bytes == 0
    assert no_graphs.kv_cache_bytes == pytest.approx(graphs.kv_cache_bytes + graphs.cudagraph_bytes, rel=1e-6)
    long = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=65536, env=["VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"])
    assert long.args.max_model_len == 65536
    with pytest.raises(InputError):
        kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=65536)
    with pytest.raises(InputError, match="KEY=VALUE"):
        kvplan.fit("Qwen/Qwen3-8B", "H100", env=["VLLM_USE_V1"])
    from kvplan.deploy import render_files, spec_from_plan
    files = render_files(spec_from_plan(on))
    assert "export VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1" in files["serve.sh"]
    assert 'VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE: "1"' in files["docker-compose.yml"]


def test_a_refused_start_logs_only_what_vllm_prints_before_it_stops():
    # V1 raises in get_kv_cache_config's memory check, before the "GPU KV cache size" line
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "RTX 4090", vllm_version="0.19.0")
    assert not p.fits and p.failure == "memory"
    assert any(l.startswith("Available KV cache memory") for l in p.vllm_log)
    assert not any("GPU KV cache size" in l for l in p.vllm_log) and p.vllm_log[-1].startswith("ValueError")
    # a GPU the wheels have no kernels for stops at the first kernel: no loading line, no pool, no validated band
    from kvplan.validate import uncertainty_band

    old = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "Tesla P100", max_model_len=4096)
    assert old.failure == "platform" and len(old.vllm_log) == 1 and "no kernel image" in old.vllm_log[0]
    assert uncertainty_band(old) is None


def test_scheduler_limits_vllm_refuses_before_loading():
    import kvplan
    from kvplan.errors import RefusedByVLLMError
    from kvplan.plan import BATCHED_TOKENS_BELOW_MAX_MODEL_LEN

    with pytest.raises(RefusedByVLLMError) as e:  # explicit max_num_seqs above the token budget
        kvplan.fit("Qwen/Qwen3-8B", "H100", max_num_batched_tokens=100, max_num_seqs=256)
    assert "must be greater than or equal to max_num_seqs (256)" in str(e.value) and e.value.field == "--max-num-batched-tokens"
    assert e.value.rule != BATCHED_TOKENS_BELOW_MAX_MODEL_LEN
    # left at its default, max_num_seqs follows the budget in V1 (min(default, max_num_batched_tokens))
    assert kvplan.fit("Qwen/Qwen3-8B", "H100", max_num_batched_tokens=100, fixes=False).args.max_num_seqs == 100
    with pytest.raises(RefusedByVLLMError) as e:  # V0, 16K context, chunked prefill not on by itself below 32K
        kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "H100", max_num_batched_tokens=4096, max_model_len=16384, vllm_version="0.7.3")
    assert "is smaller than max_model_len (16384)" in str(e.value) and e.value.rule == BATCHED_TOKENS_BELOW_MAX_MODEL_LEN
    ok = kvplan.fit("Qwen/Qwen2.5-7B-Instruct", "H100", max_num_batched_tokens=4096, max_model_len=16384,
                    vllm_version="0.7.3", enable_chunked_prefill=True, fixes=False)
    assert ok.args.max_num_batched_tokens == 4096


def test_sweep_plot_shades_the_validated_band(tmp_path):
    import matplotlib

    from kvplan.render import plot_sweep
    from kvplan.validate import band_bounds, uncertainty_band

    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=8192, fixes=False)
    band = uncertainty_band(p)
    rows = [{"max_model_len": n, "max_concurrency": p.max_concurrency * 8192 / n, "fits": True} for n in (4096, 8192, 16384)]
    matplotlib.rcParams["svg.fonttype"] = "none"  # keep the title as text
    out = tmp_path / "s.svg"
    plot_sweep(rows, ["max_model_len"], str(out), band=band)
    assert "shaded: p10-p90 of the validated residuals" in out.read_text()
    lo, hi = band_bounds(p.max_concurrency, band)
    assert lo < hi


def test_sweep_plot_puts_the_context_on_the_x_axis_whichever_flag_came_first(tmp_path, monkeypatch):
    """--vary gpu=... --vary max_model_len=...: concurrency vs context, one line per GPU; a 30x span is drawn log-y."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kvplan.render import plot_sweep

    rows = [{"gpu": g, "max_model_len": n, "max_concurrency": c * 4096 / n, "fits": True}
            for g, c in (("L4", 8.0), ("H100", 110.0)) for n in (4096, 16384, 131072)]
    seen = {}
    monkeypatch.setattr(plt, "close", lambda fig: seen.setdefault("ax", fig.axes[0]))
    plot_sweep(rows, ["gpu", "max_model_len"], str(tmp_path / "s.png"))
    ax = seen["ax"]
    assert ax.get_xlabel() == "max_model_len (tokens)" and ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["L4", "H100"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["4,096", "16,384", "131,072"]


def test_a_quantization_method_the_gpu_is_too_old_for_does_not_start():
    """vLLM refuses --quantization fp8 below Fp8Config.get_min_capability() (80 up to 0.13, 75 from 0.14): on a T4
    (7.5) the plan does not start with 0.11 and starts with 0.14 on; no fix or hint proposes fp8 there. (0.14 and
    0.15 fail on the T4 anyway, loading the 8B in float16 before quantizing it: 0.16 is the first to load it.)"""
    args = dict(quantization="fp8", max_model_len=4096, dtype="float16")
    old = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "T4", vllm_version="0.11.0", **args)
    assert not old.fits and old.failure == "platform"
    assert "quantization method fp8 is not supported for the current GPU. Minimum capability: 80. Current capability: 75" in old.error
    assert all("quantization" not in (f.flags or {}) for f in old.fixes)
    new = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "T4", vllm_version="0.16.0", **args)
    assert new.fits, new.error
    loads_16bit = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "T4", vllm_version="0.14.0", fixes=False, **args)
    assert loads_16bit.failure == "load" and "online FP8" in loads_16bit.error
    with pytest.raises(InputError) as exc:
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "T4", vllm_version="0.11.0", quantization="awq", max_model_len=4096)
    assert "fp8" not in str(exc.value)
    with pytest.raises(InputError) as exc:
        kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", vllm_version="0.11.0", quantization="awq", max_model_len=4096)
    assert "--quantization fp8" in str(exc.value)


def test_the_seeds_arithmetic_counts_the_rotary_cache_of_its_release():
    """--overhead-gb plans a quantized catalog checkpoint's weights by count, its multimodal rotary cache included:
    4 x the positions from vLLM 0.7.2 (rotary_embedding/mrope.py), 1 x before, as the full plan counts it."""
    import kvplan

    old = kvplan.fit("nvidia/Qwen3.6-27B-NVFP4", gpu_gb=200, overhead_gb=1, vllm_version="0.7.1")
    new = kvplan.fit("nvidia/Qwen3.6-27B-NVFP4", gpu_gb=200, overhead_gb=1, vllm_version="0.7.2")
    assert new.weights_bytes - old.weights_bytes == 3 * 262_144 * 64 * 2  # 3 more position copies x rotary dim x bf16


@pytest.mark.parametrize("version, gpu, env", [("0.11.0", "H100", None), ("0.12.0", "H100", None), ("0.12.0", "A100", None),
                                               ("0.12.0", "B200", None), ("0.12.0", "H100", {"VLLM_MXFP4_USE_MARLIN": "1"})])
def test_the_seeds_arithmetic_pads_mxfp4_experts_as_the_full_plan(version, gpu, env):
    """--overhead-gb counts gpt-oss's MXFP4 experts with the padding of the backend this GPU and release get (Hopper:
    Marlin before 0.12, Triton from it, Marlin again with VLLM_MXFP4_USE_MARLIN=1; SM100 FlashInfer; Marlin below
    SM90), the same bytes as the full plan (plan.rank_weights); it had counted them unpadded on every GPU."""
    import kvplan

    kw = dict(max_model_len=8192, vllm_version=version, env=env, fixes=False)
    simple = kvplan.fit("openai/gpt-oss-120b", gpu, overhead_gb=1, **kw)
    full = kvplan.fit("openai/gpt-oss-120b", gpu, **kw)
    assert simple.mode == "simple" and full.mode == "vllm"
    assert simple.weights_bytes == full.weights_bytes
    assert simple.weights_bytes > 65_185_750_144  # the unpadded count (60.71 GiB)


def test_the_seeds_arithmetic_pads_a_quantized_checkpoints_experts_too():
    """With checkpoint files (a Hub id or a folder), --overhead-gb took their stored bytes / TP, unpadded, where the
    full plan pads the MXFP4 experts as the GPU's backend does: both now count with plan.rank_weights."""
    from dataclasses import replace

    import kvplan
    from kvplan.resolve import CheckpointWeights, resolve_model

    files = CheckpointWeights((("BF16", 2_000_000_000), ("U8", 63_000_000_000)), source="test files")
    m = replace(resolve_model("openai/gpt-oss-120b"), checkpoint=files)
    kw = dict(max_model_len=8192, vllm_version="0.12.0", fixes=False)
    for gpu in ("H100", "A100"):
        simple, full = kvplan.fit(m, gpu, overhead_gb=1, **kw), kvplan.fit(m, gpu, **kw)
        assert simple.weights_bytes == full.weights_bytes > files.total_bytes


def test_gemma4_default_batch_is_raised_to_one_video_item_from_0_22():
    # vLLM PR #43051 (first in 0.22.0; absent from 0.21.0): for a multimodal prefix-LM model whose processor states
    # its per-item maxima (Gemma 4: a video is 32 x (70 + 2 + 6) = 2,496 tokens), a max_num_batched_tokens vLLM chose
    # itself is raised to fit one item. tests/data/blind_records.jsonl: gemma-4-26B-A4B-it NVFP4 on a GB10 with vLLM
    # 0.25.1 logs "Raising max_num_batched_tokens from 2048 to 2496 to accommodate 'video' input", and its window
    # groups then reserve ceil((1,023 + 2,496) / 16) + 1 = 221 pages per sequence: 14.92x at 262,144 tokens
    kw = dict(max_model_len=262144, gpu_memory_utilization=0.85, max_num_seqs=32, fixes=False)
    raised = kvplan.fit("google/gemma-4-26B-A4B", "GB10", vllm_version="0.25.1", **kw)
    assert raised.args.max_num_batched_tokens == 2496
    assert any("raised from 2048 to 2496" in n for n in raised.assumptions)
    before = kvplan.fit("google/gemma-4-26B-A4B", "GB10", vllm_version="0.21.0", **kw)
    assert before.args.max_num_batched_tokens == 2048
    # a number the user gave is kept, and vLLM refuses it (test_gemma4_refuses_a_given_batch_below_one_allowed_item)
    with pytest.raises(InputError, match=r"max_tokens_per_mm_item \(2496\) is larger than max_num_batched_tokens \(2048\)"):
        kvplan.fit("google/gemma-4-26B-A4B", "GB10", vllm_version="0.25.1", max_num_batched_tokens=2048, **kw)
    pool = int(84.68 * GIB)  # the record's logged pool, given: the concurrency is the log's to rounding
    logged = kvplan.fit("google/gemma-4-26B-A4B", "GB10", vllm_version="0.25.1", kv_cache_memory_bytes=pool, **kw)
    assert abs(logged.max_concurrency - 14.92) < 0.01
    # a text-only model and Gemma 3 (whose processor states no per-item maximum) keep vLLM's default
    assert kvplan.fit("google/gemma-3-27b-it", "GB10", vllm_version="0.25.1",
                      **{**kw, "max_model_len": 131072}).args.max_num_batched_tokens == 2048


GEMMA4_KW = dict(max_model_len=262144, gpu_memory_utilization=0.85, max_num_seqs=32, fixes=False)


def _gemma4_tokens(version: str, **kw) -> int:
    return kvplan.fit("google/gemma-4-26B-A4B", "GB10", vllm_version=version, **{**GEMMA4_KW, **kw}).args.max_num_batched_tokens


def test_gemma4_batch_raise_is_keyed_on_vllms_is_mm_prefix_lm():
    # vLLM keys the raise on ModelConfig.is_mm_prefix_lm (engine/arg_utils.py, 0.22.0-0.33.0), which for Gemma 4 is
    # text_config.use_bidirectional_attention == "vision" (transformers_utils/model_arch_config_convertor.py
    # Gemma4ModelArchConfigConvertor), not the model type: a Gemma 4 config without it keeps the default
    from dataclasses import replace

    from kvplan.plan import _is_mm_prefix_lm, _prefix_lm_item_tokens

    spec, rules, args = resolve_model("google/gemma-4-26B-A4B"), rules_for("0.25.1"), EngineArgs()
    assert spec.text_config.get("use_bidirectional_attention") == "vision"  # the catalog's Gemma 4 configs all say so
    assert _is_mm_prefix_lm(spec, args, rules) and _prefix_lm_item_tokens(spec, args, rules) == 2496
    causal = replace(spec, text_config={**spec.text_config, "use_bidirectional_attention": None})
    assert not _is_mm_prefix_lm(causal, args, rules) and _prefix_lm_item_tokens(causal, args, rules) == 0
    # Gemma 3 is a prefix-LM to vLLM (the base convertor's list) but its processor states no per-item maximum
    gemma3 = resolve_model("google/gemma-3-27b-it")
    assert _is_mm_prefix_lm(gemma3, args, rules) and _prefix_lm_item_tokens(gemma3, args, rules) == 0


def test_gemma4_batch_raise_ignores_modality_limits_until_text_only_mode_from_0_27():
    # _get_min_mm_batched_tokens asks for one item of every *supported* modality (info.supported_mm_limits), so a 0
    # video limit still raises to a video item (0.22.0-0.33.0). A text-only deployment (every limit 0, or
    # --language-model-only) stops being a prefix-LM from 0.27.0 (ModelConfig._supports_multimodal_for_mm_prefix,
    # absent from 0.26.0), so the default stays there
    for version in ("0.25.1", "0.26.0", "0.27.0", "0.33.0"):
        assert _gemma4_tokens(version, limit_mm_per_prompt='{"video": 0}') == 2496
    for off in (dict(limit_mm_per_prompt="image=0,video=0"), dict(language_model_only=True)):
        assert _gemma4_tokens("0.26.0", **off) == 2496
        assert _gemma4_tokens("0.27.0", **off) == 2048
        assert _gemma4_tokens("0.33.0", **off) == 2048
    # the video item is min(32, num_frames) x 78 tokens (models/gemma4_mm.py get_mm_max_tokens_per_item): 8 frames
    # are 624 tokens, below the default, so nothing is raised
    assert _gemma4_tokens("0.33.0", limit_mm_per_prompt='{"video": {"count": 1, "num_frames": 8}}') == 2048


def test_gemma4_refuses_a_given_batch_below_one_allowed_item():
    # an explicit --max-num-batched-tokens is never raised; vLLM forces --disable-chunked-mm-input for a prefix-LM
    # (platforms/cuda.py) and MultiModalBudget refuses a budget below the largest item of an allowed modality
    # (v1/core/encoder_cache_manager.py compute_mm_encoder_budget, 0.22.0 and 0.33.0; vllm-project/recipes #441)
    from kvplan.errors import RefusedByVLLMError
    from kvplan.plan import MM_ITEM_ABOVE_BATCHED_TOKENS

    for version in ("0.22.0", "0.33.0"):
        with pytest.raises(RefusedByVLLMError) as exc:
            _gemma4_tokens(version, max_num_batched_tokens=2048)
        assert exc.value.rule == MM_ITEM_ABOVE_BATCHED_TOKENS and "2496" in str(exc.value)
        assert _gemma4_tokens(version, max_num_batched_tokens=2496) == 2496
        # video off: the largest allowed item is an image (280 soft tokens), which fits
        assert _gemma4_tokens(version, max_num_batched_tokens=2048, limit_mm_per_prompt="video=0") == 2048
        assert _gemma4_tokens(version, max_num_batched_tokens=2048, language_model_only=True) == 2048
        with pytest.raises(RefusedByVLLMError, match=r"\(280\) is larger than max_num_batched_tokens \(256\)"):
            _gemma4_tokens(version, max_num_batched_tokens=256, limit_mm_per_prompt="video=0")
    # before 0.22 kvplan applies no refusal (those releases' sources were not read for it)
    assert _gemma4_tokens("0.21.0", max_num_batched_tokens=2048) == 2048


def test_mllama_v0_profile_vision_pass_from_the_source(tmp_path):
    # Llama-3.2-11B-Vision (base: 448-pixel tiles, vision_config of tests/data/extra_records.jsonl) on V0, 128
    # sequences: the encoder-decoder runner encodes one dummy image per sequence, 4 tiles x 1032 tokens (1025 padded
    # to a multiple of 8). vLLM PR #12126's log (main between 0.6.6.post1 and 0.7.0): "PyTorch activation peak
    # memory takes 36.63GiB"; kvplan had computed no encoder pass (an activation of 6.25 GiB, the KV pool +210 %).

    from kvplan.plan import _multimodal_profile_bytes

    rec, model = _extra_record_model("llama-3.2-11b-vision-h100-u090-l65k-eager-dummy", tmp_path)
    args = EngineArgs(tensor_parallel_size=1, max_model_len=65536, max_num_seqs=128, max_num_batched_tokens=65536,
                      dtype="bfloat16")
    h = 128 * 4128 * 1280 * 2
    mask = 128 * 4128 * 4128 * 2
    pixels = 128 * 4 * 3 * 448 * 448 * 4
    # the patch embedding's output (1024 patches per tile, before the class token and the padding), which
    # MllamaVisionModel.forward keeps bound to `patch_embeds` through both encoders; without it the pass came out
    # 1.25 GiB under the log (35.33 GiB under 0.7.0's code)
    patch_out = 128 * 4 * 1024 * 1280 * 2
    peaks = {}
    for version, copies in (("0.7.0", 2), ("0.7.3", 1)):
        extra, note = _multimodal_profile_bytes(model, args, rules_for(version), 0)
        assert extra == int(mask + 23 * h + copies * pixels + patch_out)
        assert "128 dummy image(s)" in note and "4 tiles x 1032 tokens" in note and "1.25 GiB patch embedding" in note
        peaks[version] = extra / GIB
    assert abs(peaks["0.7.0"] - 36.63) / 36.63 < 0.005
    # the patch embedding's linear is column-parallel without a gather: each rank keeps its 1 / TP shard
    from dataclasses import replace
    tp2 = _multimodal_profile_bytes(model, replace(args, tensor_parallel_size=2), rules_for("0.7.0"), 0)[0]
    assert tp2 == int(mask + (5 + 2 * 5 + 2 * 4 / 2) * h + 2 * pixels + patch_out // 2)
    # the term is what the pass adds above the text peak; no image allowed, no pass
    assert (_multimodal_profile_bytes(model, args, rules_for("0.7.0"), 6 * GIB)[0]
            == int(mask + 23 * h + 2 * pixels + patch_out) - 6 * GIB)
    assert _multimodal_profile_bytes(model, replace(args, limit_mm_per_prompt='{"image": 0}'), rules_for("0.7.0"), 0)[0] == 0


def test_mllama_vision_tower_weights_count_both_encoders_and_the_tile_tables(tmp_path):
    # Llama-3.2-11B-Vision's tower (models/mllama.py MllamaVisionModel, 0.7.1): 32 local and 8 global encoder layers,
    # a position table per tile and aspect ratio, and a 7680 -> 4096 projector. kvplan had counted the 32 local layers
    # and a LLaVA-style projector only: 652,459,008 parameters, weights 2.0 % under the 19.86 GiB vLLM PR #12126 logs.
    from kvplan.weights import _vision_parts

    rec, model = _extra_record_model("llama-3.2-11b-vision-h100-u090-l65k-eager-dummy", tmp_path)
    v = model.vision_config
    h, inter, layers = v["hidden_size"], v["intermediate_size"], v["num_hidden_layers"] + v["num_global_layers"]
    positions = (v["image_size"] // v["patch_size"]) ** 2 + 1  # 1,025 at 448 pixels
    ratios = len(v["supported_aspect_ratios"]) + 1  # aspect-ratio id 0 is padding
    encoder = layers * (4 * h * h + (h * inter + inter) + (inter * h + h) + 2 * 2 * h) + 2 * v["num_global_layers"]
    tables = positions * h + 1 + ratios * v["max_num_tiles"] * positions * h + 2 * (ratios * v["max_num_tiles"] * h + 1)
    stem = 3 * v["patch_size"] ** 2 * h + h + 2 * 2 * h  # patch projection, class embedding, pre and post LayerNorm
    projector = v["vision_output_dim"] * model.hidden_size + model.hidden_size
    assert _vision_parts(model)[0] == encoder + tables + stem + projector
    p = plan(model, find_gpu("H100"), EngineArgs(max_model_len=65536, max_num_seqs=128, enforce_eager=True,
                                                 vllm_version="0.7.0"))
    assert abs(p.weights_bytes / GIB - rec["observed"]["weights_gib"]) / rec["observed"]["weights_gib"] < 0.002


def test_a_pool_that_a_cold_first_start_would_not_hold_is_warned():
    """A first start compiles its graphs inside the memory profile and has logged up to 1.74 GiB less pool than the
    warm restart kvplan plans (public cold/warm pairs, 0.23-0.29): a plan that holds one max_model_len request only
    within that margin is warned; one with room, an eager start (no compile) and V0 (compiles nothing) are not."""
    def warned(**kw):
        p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", **kw)
        return p.fits and any("first start may be refused" in w for w in p.warnings)

    edge = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", fixes=True).fixes[0].flags["max_model_len"]
    assert warned(max_model_len=edge)
    assert not warned(max_model_len=16384)
    assert not warned(max_model_len=edge, enforce_eager=True)
    assert not warned(max_model_len=edge, vllm_version="0.7.1")
    # no TorchInductor compile, no cold start to pay for: compilation mode NONE (level 0 before 0.11) or the "eager"
    # backend (config/compilation.py CompilationMode; docs/design/debug_vllm_compile.md), as with --enforce-eager;
    # neither the warning nor the compile-cache note. The other modes still compile
    for config in ('{"mode": 0}', '{"mode": "NONE"}', '{"level": 0}', '{"backend": "eager"}'):
        assert not warned(max_model_len=edge, compilation_config=config), config
        p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=edge, compilation_config=config)
        assert not any(a.startswith("torch.compile: planned") for a in p.assumptions), config
    assert warned(max_model_len=edge, compilation_config='{"mode": 3}')
    assert warned(max_model_len=edge, compilation_config='{"cudagraph_mode": "PIECEWISE"}')
    # --max-model-len -1: vLLM's auto-fit sizes the length from the pool the profile left, so a cold first start is
    # served a shorter length, not refused; the warning says which (the length the colder pool holds), not a refusal
    auto = kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=-1)
    cold = [w for w in auto.warnings if w.startswith("a first start compiles")]
    assert auto.fits and len(cold) == 1 and "may be refused" not in cold[0]
    shorter = int(cold[0].split("pool: about ")[1].split(" tokens")[0].replace(",", ""))
    assert f"instead of the {auto.args.max_model_len:,} planned here" in cold[0]
    assert 0 < shorter < auto.args.max_model_len
    # that length is about what a pool the plan's cold-start margin smaller holds (first_start loss_bytes_most:
    # Qwen3-32B's 1.45 GiB embedding copy, below the 2.32 GiB activation peak of its 8,192-token profile, so only the
    # reserved copy counts): with the budget that much lower it starts, while the warm plan's own length does not
    margin = auto.first_start["loss_bytes_most"]
    assert auto.first_start["loss_bytes_least"] == 0 and abs(margin / GIB - 1.45) < 0.01
    assert f"up to {margin / GIB:.2f} GiB less KV pool" in cold[0]
    colder = auto.args.gpu_memory_utilization - margin / auto.total_bytes
    assert kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=shorter, gpu_memory_utilization=colder, fixes=False).fits
    assert not kvplan.fit("Qwen/Qwen3-32B", "H100", max_model_len=auto.args.max_model_len, gpu_memory_utilization=colder,
                          fixes=False).fits



def test_cold_start_pool_loss_is_inductors_embedding_copy_and_matches_the_public_pairs():
    """A compiling start's profile holds a random copy of the embedding table (Inductor's combo-kernel benchmark,
    get_args rand_strided; vLLM turns it on from 0.11.1): the peak takes copy + output above the activation peak, and
    where the freed copy's segment stays reserved the consumed memory holds it once more. The public cold/warm pairs
    of one command land on one end or the other of that range, each within 0.06 GiB; the old constant (1.74 GiB) was
    0.7-1.0 GiB off three of the four."""
    from dataclasses import replace

    from kvplan.plan import COLD_START_POOL_LOSS_BYTES, cold_start_pool_loss_bytes

    def loss(model, gpu, version, **kw):
        p = kvplan.fit(model, gpu, vllm_version=version, fixes=False, **kw)
        return p.first_start["loss_bytes_least"] / GIB, p.first_start["loss_bytes_most"] / GIB, p

    # (model, GPU, release, flags, the pool the cold start lost against the warm one, which end of the range)
    pairs = (("Qwen/Qwen3-8B", "RTX 4090", "0.27.1", {"max_model_len": 8192}, 0.99, 0),  # peak only
             ("Qwen/Qwen2.5-7B-Instruct", "RTX 4090", "0.23.0", {"max_model_len": 32768, "max_num_seqs": 32}, 0.78, 0),
             ("Qwen/Qwen3-1.7B", "RTX 4090", "0.27.1", {"max_model_len": 2048, "max_num_seqs": 256,
                                                        "gpu_memory_utilization": 0.92}, 1.05, 1),  # + reserved copy
             ("Qwen/Qwen2.5-7B-Instruct", "RTX 5090", "0.29.0", {"max_model_len": 8192, "gpu_memory_utilization": 0.9},
              1.74, 1))
    for model, gpu, version, kw, observed, end in pairs:
        least, most, p = loss(model, gpu, version, **kw)
        assert abs((least, most)[end] - observed) <= 0.06, (model, gpu, least, most)
        assert abs(COLD_START_POOL_LOSS_BYTES / GIB - observed) > 0.6 or observed == 1.74
        assert p.first_start["kv_cache_bytes_most"] == p.kv_cache_bytes - p.first_start["loss_bytes_least"]
    # the copy is the padded vocabulary x hidden in the activation dtype, VocabParallelEmbedding's shard under TP
    one = kvplan.fit("Qwen/Qwen3-8B", "H100", fixes=False)
    two = kvplan.fit("Qwen/Qwen3-8B", "H100", tensor_parallel_size=2, fixes=False)
    assert one.first_start["embedding_copy_bytes"] == 151936 * 4096 * 2
    assert two.first_start["embedding_copy_bytes"] == 151936 // 2 * 4096 * 2
    rules = one.rules
    # Inductor's combo-kernel benchmark off (either key given, the pair not both on): no copy, no margin
    for ind in ('{"combo_kernels": false}', '{"benchmark_combo_kernel": false}', '{"combo_kernels": true}'):
        args = replace(one.args, compilation_config=f'{{"inductor_compile_config": {ind}}}')
        assert cold_start_pool_loss_bytes(one.model, args, rules, one.activation_peak_bytes).most == 0, ind
    # a release without the rule (0.11.0 sets neither): up to the public pairs' largest, as before
    old = cold_start_pool_loss_bytes(one.model, one.args, rules_for("0.11.0"), one.activation_peak_bytes)
    assert (old.least, old.most, old.modelled) == (0, COLD_START_POOL_LOSS_BYTES, False)
    assert rules_for("0.11.1").cold_compile_embedding_copy and not rules_for("0.11.0").cold_compile_embedding_copy
    # a multimodal model's profile passes inputs_embeds: no gather compiled, nothing lost, nothing warned; with every
    # modality off (--language-model-only) it takes input_ids again
    vl = kvplan.fit("Qwen/Qwen3-VL-2B-Instruct", "H100", fixes=False)
    assert vl.first_start["loss_bytes_most"] == 0
    assert not any(w.startswith("a first start compiles") for w in vl.warnings)
    text = kvplan.fit("Qwen/Qwen3-VL-2B-Instruct", "H100", language_model_only=True, fixes=False)
    assert text.first_start["embedding_copy_bytes"] > 0
    # no compile, no first-start pool
    assert kvplan.fit("Qwen/Qwen3-8B", "H100", enforce_eager=True, fixes=False).first_start is None
    assert "first_start" in one.to_dict() and one.to_dict()["first_start"]["modelled"] is True


def test_pixtral_and_llava_next_profile_passes_are_computed_from_the_source(tmp_path):
    # Pixtral (models/pixtral.py, 0.10.2 and 0.19.0 wheels): one image of image_size square per item, its
    # (image_size / patch)^2 patches merged spatial_merge_size^2 into one feature; the items' patches attend through a
    # patches x patches mask (generate_block_attention_mask) only where xformers is not a vLLM dependency (0.12 on)
    from dataclasses import replace
    from pathlib import Path

    from kvplan.plan import _llava_next_item, _multimodal_profile_bytes, _pixtral_item

    model = resolve_model("mistralai/Mistral-Small-3.1-24B-Instruct-2503")
    assert _pixtral_item(model) == (55 * 55, 110 * 110)
    args = EngineArgs(tensor_parallel_size=1, max_model_len=8192, max_num_seqs=1024, max_num_batched_tokens=8192,
                      dtype="bfloat16")
    new = _multimodal_profile_bytes(model, args, rules_for("0.19.0"), 10 * GIB)[0]
    old, note = _multimodal_profile_bytes(model, args, rules_for("0.11.0"), 10 * GIB)
    assert "2 item(s) of 3,025 tokens each (24,200 patches in all)" in note and "without a patches x patches mask" in note
    # below a large text peak both charge the cached outputs (2 x 3,025 features x 5,120 x 2 B) and the pixels alone
    assert new == old == 2 * 3025 * 5120 * 2 + 2 * 3 * 1540 * 1540 * 2
    # with no text peak the encoder is the peak, and the mask (24,200^2 x 2 B) is the 0.12+ difference
    assert (_multimodal_profile_bytes(model, args, rules_for("0.19.0"), 0)[0]
            - _multimodal_profile_bytes(model, args, rules_for("0.11.0"), 0)[0]) == 24200 * 24200 * 2
    # the Mistral-format tower is whole on every rank: TP 2 encodes as much per rank as TP 1
    assert (_multimodal_profile_bytes(model, replace(args, tensor_parallel_size=2), rules_for("0.19.0"), 0)[0]
            == _multimodal_profile_bytes(model, args, rules_for("0.19.0"), 0)[0])
    # an image limit of 0 encodes none; a 4,096-token budget takes one item, 6,050 two
    assert _multimodal_profile_bytes(model, replace(args, limit_mm_per_prompt={"image": 0}), rules_for("0.19.0"), 0)[0] == 0
    assert "1 item(s) of 3,025" in _multimodal_profile_bytes(model, replace(args, max_num_batched_tokens=4096),
                                                              rules_for("0.19.0"), 0)[1]
    assert "2 item(s) of 3,025" in _multimodal_profile_bytes(model, replace(args, max_num_batched_tokens=6050),
                                                              rules_for("0.19.0"), 0)[1]
    # LLaVA-NeXT (models/llava_next.py get_image_size_with_most_features / get_num_image_tokens): the 672 x 672
    # pinpoint, 576 + 48 x 48 + 48 = 2,928 tokens over 5 CLIP tiles of 577 patches; a 16,384-token budget with a
    # 4,096 max_model_len takes 5 items, as llava-v1.6-mistral-7b-hf's 0.10.2 log says ('5 image items')
    rec = next(json.loads(line) for line in (Path(__file__).parent / "data" / "blind_records.jsonl").read_text().splitlines()
               if '"llava-v1.6-mistral-7b-hf-h100pcie-u090-tp1-l4k-llm"' in line)
    (tmp_path / "config.json").write_text(json.dumps(rec["model"]["config"]))
    nxt = resolve_model(str(tmp_path / "config.json"))
    assert _llava_next_item(nxt) == (2928, 5, "672 x 672")
    llm = EngineArgs(tensor_parallel_size=1, max_model_len=4096, max_num_seqs=256, max_num_batched_tokens=16384,
                     dtype="float16")
    extra, note = _multimodal_profile_bytes(nxt, llm, rules_for("0.10.2"), 0)
    assert "5 item(s) of 2,928 tokens each (14,425 patches in all)" in note
    # with a text peak above the encoder's, the pass adds the cached outputs (5 x 2,928 x 4,096 x 2 B) and the pixels
    assert _multimodal_profile_bytes(nxt, llm, rules_for("0.10.2"), 2 * GIB)[0] == 5 * 2928 * 4096 * 2 + 25 * 3 * 336 * 336 * 2


def test_pixtral_tower_weights_are_whole_on_every_rank_as_its_profile_pass_takes_them():
    # the encoder pass plans the Mistral-format Pixtral tower whole on every rank (plain nn.Linear, models/pixtral.py
    # VisionTransformer, 0.19.0); the weights split it by TP, so at TP 2 the two terms took different towers. Now both
    # keep it whole: the vision bytes per rank are the same at TP 1 and TP 2 (0.81 GiB; it read 0.41 at TP 2)
    from kvplan.weights import weights_per_rank

    model = resolve_model("mistralai/Mistral-Small-3.1-24B-Instruct-2503")

    def vision(spec, tp):
        return dict(weights_per_rank(spec, tp=tp).by_use).get("vision", 0)

    assert vision(model, 1) > 0.7 * GIB and vision(model, 2) == vision(model, 1)


def test_a_plan_with_no_room_left_shows_no_negative_pool():
    """Where the weights alone pass the requested memory (Gemma-4-26B-A4B, 48.5 GiB, on an L4's 20.2 GiB) the box said
    'KV cache -30.02 GiB'; it now says there is none and by how much the other terms exceed the requested memory, while
    --json keeps the signed figure, whose terms add up."""
    from rich.console import Console

    from kvplan.render import plan_table

    p = kvplan.fit("google/gemma-4-26B-A4B", "L4", fixes=False)
    assert p.kv_cache_bytes < 0
    console = Console(width=200, record=True)
    console.print(plan_table(p))
    text = console.export_text()
    line = next(l for l in text.splitlines() if "KV cache" in l)
    assert "none:" in line and f"by {-p.kv_cache_bytes / GIB:.2f} GiB" in line and "-" not in line.split("KV cache")[1].split("none")[0]
    ok = kvplan.fit("Qwen/Qwen2.5-0.5B-Instruct", "L4", fixes=False)
    console = Console(width=200, record=True)
    console.print(plan_table(ok))
    assert f"{ok.kv_cache_bytes / GIB:.2f} GiB" in next(l for l in console.export_text().splitlines() if "KV cache" in l)


def test_the_box_shows_a_first_starts_pool_beside_the_planned_one():
    from kvplan.api import fit
    from kvplan.render import first_start_text

    plan = fit("Qwen/Qwen3-8B", gpu="RTX 4090", vllm_version="0.27.1", max_model_len=8192, site_calibration=False)
    first = plan.first_start
    text = first_start_text(plan)
    assert f"{first['kv_cache_bytes_least'] / 2**30:.2f}–{first['kv_cache_bytes_most'] / 2**30:.2f} GiB" in text
    assert first["kv_cache_bytes_most"] < plan.kv_cache_bytes  # the compiling start's pool is the smaller
    # nothing compiles eager, nor on V0; a multimodal profile compiles no gather: no first-start text
    assert first_start_text(fit("Qwen/Qwen3-8B", gpu="RTX 4090", vllm_version="0.27.1", enforce_eager=True,
                                site_calibration=False)) == ""
    assert first_start_text(fit("Qwen/Qwen3-8B", gpu="RTX 4090", vllm_version="0.6.4", site_calibration=False)) == ""
    assert first_start_text(fit("Qwen/Qwen3.5-27B", gpu="H100", vllm_version="0.27.1", site_calibration=False)) == ""


def test_a_text_only_deployment_zeroes_the_modalities_the_model_takes():
    # Gemma 3's processor takes images only (gemma3_mm.py get_supported_mm_limits): {"image": 0} is text-only there,
    # while Qwen3-VL also takes video, so it stays multimodal until video is 0 too
    from kvplan.api import fit
    from kvplan.plan import supported_modalities

    def text_only(model_id, limits):
        plan = fit(model_id, gpu="H100", vllm_version="0.27.1", limit_mm_per_prompt=limits, site_calibration=False)
        return any(a.startswith("text-only mode") for a in plan.assumptions), plan

    gemma, plan = text_only("google/gemma-3-27b-it", '{"image": 0}')
    assert gemma and supported_modalities(plan.model) == ("image",)
    # text-only: no tower loaded, so the weights drop, and the profile compiles the embedding gather again
    multimodal = fit("google/gemma-3-27b-it", gpu="H100", vllm_version="0.27.1", site_calibration=False)
    assert plan.weights_bytes < multimodal.weights_bytes
    assert plan.first_start["loss_bytes_most"] > 0 == multimodal.first_start["loss_bytes_most"]
    assert not text_only("Qwen/Qwen3-VL-2B-Instruct", '{"image": 0}')[0]
    assert text_only("Qwen/Qwen3-VL-2B-Instruct", '{"image": 0, "video": 0}')[0]


def test_qwen3_next_query_carries_the_output_gate_its_config_does_not_state():
    # Qwen3NextAttention reads getattr(config, "attn_output_gate", True) (models/qwen3_next.py, 0.10.2 and 0.29.0) and
    # Qwen3-Next's config.json does not state it: each of the 12 full-attention layers' q_proj is 2 x 16 heads x 256
    # wide, 2 x 4,096 x 2,048 parameters, and o_proj 4,096 x 2,048
    from kvplan.weights import count_weights
    m = resolve_model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert "attn_output_gate" not in m.text_config
    attn = [c for c in count_weights(m).components if c.name == "self_attn"]
    assert len(attn) == 12 and all(c.params == 2 * 4096 * 2048 + 4096 * 2048 for c in attn)
    # vLLM 0.10.2 logged 'Model loading took 74.2812 GiB' per rank at TP2 on H200 (tests/data/extra_records.jsonl);
    # without the gate's 12 x 4,096 x 2,048 / 2 x 2 B = 0.094 GiB kvplan counted 74.187
    p = kvplan.fit(m, "H200", tensor_parallel_size=2, max_model_len=262144, vllm_version="0.10.2", fixes=False)
    assert abs(p.weights_bytes / GIB - 74.2812) < 0.01


def test_per_layer_head_counts_must_divide_by_tp_too():
    # Laguna's sliding-window layers have 72 attention heads, its full-attention ones 48 (num_attention_heads): vLLM's
    # config check reads 48 only and passes TP 16, then LagunaAttention asserts 72 % 16 == 0 while the model loads
    # (models/laguna.py, 0.21.0-0.33.0). TP 16 is refused naming the layer kind; 1, 2, 4, 8 divide 48, 72 and the 8 KV
    # heads (12 divides both head counts but cannot replicate 8 KV heads)
    from kvplan.plan.defaults import accepted_tp_sizes, per_layer_head_counts
    m = resolve_model("poolside/Laguna-S-2.1-FP8")
    assert m.num_attention_heads == 48 and per_layer_head_counts(m) == [(72, "sliding_attention")]
    assert 48 % 16 == 0 and 72 % 16 != 0
    # with expert parallelism (the experts' FP8 blocks then stay whole) this was planned as fitting
    with pytest.raises(InputError) as e:
        kvplan.fit(m, "H200", tensor_parallel_size=16, enable_expert_parallel=True, max_model_len=8192, fixes=False)
    assert e.value.field == "--tensor-parallel-size"
    assert "sliding_attention layers' 72 attention heads" in str(e.value) and "TP=16" in str(e.value)
    assert e.value.fix.endswith(": 1, 2, 4, 8") and accepted_tp_sizes(m) == [1, 2, 4, 8]
    assert kvplan.fit(m, "H200", tensor_parallel_size=8, max_model_len=8192, fixes=False).fits
    # a model without per-layer counts is untouched; the field under a model type whose vLLM class does not read it
    # is ignored
    from dataclasses import replace
    assert per_layer_head_counts(resolve_model("Qwen/Qwen2.5-7B-Instruct")) == []
    assert per_layer_head_counts(replace(m, model_type="qwen3_moe")) == []


_QWEN25_7B_AWQ = {"architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu", "hidden_size": 3584,
                  "intermediate_size": 18944, "max_position_embeddings": 32768, "max_window_layers": 28,
                  "model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
                  "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072,
                  "tie_word_embeddings": False, "torch_dtype": "float16", "use_sliding_window": False,
                  "vocab_size": 152064, "quantization_config": {"bits": 4, "group_size": 128, "quant_method": "awq",
                                                                "version": "gemm", "zero_point": True}}


def test_awq_and_gptq_weights_keep_the_allocators_rounding_rests(tmp_path):
    # AWQ / GPTQ linear weights are int32-packed (bits / 8 bytes a weight); the Marlin repack frees each loaded tensor
    # before it allocates the repacked one of the same size (awq_marlin.py _convert_awq_to_standard_format, marlin.py
    # process_weights_after_loading, 0.22.1 / 0.31.0), so the caching allocator's 2 MiB-rounded rests stay as for
    # 16-bit weights. Qwen2.5-7B AWQ INT4 under the 20 MiB split limit (>= 0.21): gate_up 3,584 x 37,888 / 2 B =
    # 64.75 MiB (+1.25), down_proj 32.375 MiB (+1.625) on 28 layers; the float16 embedding and lm_head
    # 152,064 x 3,584 x 2 B = 1,039.5 MiB (+0.5 each); qkv (7.875 MiB) and o_proj (6.125 MiB) split in 20 MiB segments
    from kvplan.weights import allocator_rounding_bytes
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(_QWEN25_7B_AWQ))
    m = resolve_model(str(cfg))
    mib = 2 ** 20
    assert allocator_rounding_bytes(m, dtype_bytes=0.5, embed_bytes=2) == (28 * (1.25 + 1.625) + 2 * 0.5) * mib
    # before 0.21 a rest of more than 1 MiB is split off: only the embedding's and lm_head's 0.5 MiB stay
    assert allocator_rounding_bytes(m, dtype_bytes=0.5, embed_bytes=2, split_limit=False) == 2 * 0.5 * mib
    # GPTQ INT8 (1 B a weight): gate_up 129.5 MiB (+0.5), down 64.75 (+1.25), qkv 15.75 MiB (+0.25, 10-20 MiB with a
    # rest of 1 MiB or less), o_proj 12.25 MiB (rest 1.75 split off)
    assert allocator_rounding_bytes(m, dtype_bytes=1, embed_bytes=2) == (28 * (0.5 + 1.25 + 0.25) + 2 * 0.5) * mib
    # the plan counts it: 0.22.1 against 0.20.0 (no split limit) on an A40, Marlin on both
    kw = dict(max_model_len=4096, fixes=False)
    new = kvplan.fit(m, "A40", vllm_version="0.22.1", **kw)
    old = kvplan.fit(m, "A40", vllm_version="0.20.0", **kw)
    assert new.weights_bytes - old.weights_bytes == 28 * (1.25 + 1.625) * mib
    # vLLM 0.22.1, 0.26.0 and 0.31.0 logged "Model loading took 5.29 GiB" (tests/data/blind_records.jsonl)
    assert abs(new.weights_bytes / GIB - 5.29) < 0.02


def test_expandable_segments_drop_the_2_mib_rounding_of_weight_tensors():
    # With expandable_segments:True PyTorch's allocator splits a block whenever 512 B or more remain, whatever
    # max_split_size says (c10/cuda/CUDACachingAllocator.cpp should_split), and allocated_bytes counts the block: the
    # request rounded to 512 B (round_size). Qwen2.5-1.5B's 91.9 MiB of 2 MiB rests from 0.21 (its tensors are whole
    # multiples of 512 B) are not counted; vLLM appends its 20 MiB max_split_size to the live settings
    # (gpu_worker.py _scoped_allocator_max_split, 0.34.0), so the option stays on while weights load
    from kvplan.plan.args import EngineArgs
    from kvplan.weights import allocator_rounding_bytes
    m = resolve_model("Qwen/Qwen2.5-1.5B-Instruct")
    rounding = allocator_rounding_bytes(m)
    assert rounding == (28 * (1.5 + 1.75) + 0.875) * 2 ** 20
    assert allocator_rounding_bytes(m, expandable_segments=True) == 0
    assert allocator_rounding_bytes(m, split_limit=False, expandable_segments=True) == 0
    kw = dict(max_model_len=4096, fixes=False, vllm_version="0.30.0")
    plain = kvplan.fit(m, "T4", **kw)
    for env in (["PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:512"],
                ["PYTORCH_ALLOC_CONF=expandable_segments:True"],
                ["PYTORCH_ALLOC_CONF=expandable_segments:True", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False"]):
        p = kvplan.fit(m, "T4", env=env, **kw)
        assert plain.weights_bytes - p.weights_bytes == rounding, env
        assert any("expandable_segments:True" in a and "not counted" in a for a in p.assumptions), env
    # off, overridden by a later option, or shadowed: PyTorch reads PYTORCH_ALLOC_CONF first, and only it when set
    for env in (["PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False"],
                ["PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,expandable_segments:False"],
                ["PYTORCH_ALLOC_CONF=max_split_size_mb:512", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"]):
        assert kvplan.fit(m, "T4", env=env, **kw).weights_bytes == plain.weights_bytes, env
    assert EngineArgs(env=(("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:20, expandable_segments:True"),)).expandable_segments()
    # a tensor whose size is not a multiple of 512 B keeps the rest up to the next 512 B
    from dataclasses import replace
    odd = replace(m, hidden_size=m.hidden_size + 1)
    assert 0 < allocator_rounding_bytes(odd, expandable_segments=True) < 512 * (1 + 2 * 28)
