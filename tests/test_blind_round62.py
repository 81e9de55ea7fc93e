"""The blind set's sixty-second round (SOURCES-logs.md): three starts from one Kubernetes deployment repository.

aihpi/litellm-k8s serves its models with vLLM on single H100 80GB cards, each pod mounting only the Hugging Face cache
(/root/.cache/huggingface) and its vLLM config file, so vLLM's compile cache (/root/.cache/vllm) starts empty in every
pod: every start compiles inside the memory profile. Two starts of nvidia/Llama-3.3-70B-Instruct-FP8 (ModelOpt FP8,
fp8 KV cache, utilization 0.95) under vLLM 0.15.1, dated by the deployment's commits: one refused at the model's
131,072 tokens with 16 sequences, one serving at 32,000 tokens with 8 sequences; and openai/gpt-oss-120b under vLLM
0.27.1 at 131,072 tokens, 8 sequences and CUDA graphs to size 16.

At first scoring, before any change: Llama-3.3-70B pool +12.40 % (both starts), tokens +12.32 %, concurrency +12.00 %,
weights -0.00 %, the refusal's verdict right; gpt-oss-120b pool +16.55 %, weights -0.17 %. Each pool lies inside
kvplan's own first-start band for its plan (the Inductor copy of the embedding table), which no record field can
select; nothing in the tool changed for them.
"""

import pytest

from kvplan.validate import predict_record, validate_records
from named_records import BLIND, planned_versions, records

LLAMA = "llama-3.3-70b-instruct-fp8-modelopt-h100-u095-tp1-fp8kv-l32k-seqs8-v0151"
LLAMA_FAIL = "llama-3.3-70b-instruct-fp8-modelopt-h100-u095-tp1-fp8kv-l128k-seqs16-v0151-fail"
GPTOSS = "gpt-oss-120b-h100-u095-tp1-l128k-seqs8-cg16-cpuoffload-v0271"
IDS = (LLAMA, LLAMA_FAIL, GPTOSS)
GIB = 1024 ** 3
# Llama-3 70B's KV page for one token: 80 layers x 8 KV heads x head size 128, K and V, fp8 (one byte)
LLAMA_PAGE = 80 * 8 * 128 * 2 * 1
FIRST_SCORES = {LLAMA: {"kv_cache_gib": 12.40, "kv_cache_tokens": 12.32, "max_concurrency": 12.00, "weights_gib": -0.00},
                LLAMA_FAIL: {"kv_cache_gib": 12.40},
                GPTOSS: {"kv_cache_gib": 16.55, "weights_gib": -0.17}}


def _records():
    return records(BLIND, IDS)


def test_planned_on_the_stated_releases():
    assert planned_versions(_records()) == {LLAMA: "0.15.1", LLAMA_FAIL: "0.15.1", GPTOSS: "0.27.1"}


def test_the_llama_logs_own_arithmetic():
    # 33,504 tokens of 163,840 B are the printed 5.11 GiB, and 33,504 / 32,000 the printed 1.05x
    rec = _records()[LLAMA]
    obs = rec["observed"]
    assert LLAMA_PAGE == 163_840
    assert abs(obs["kv_cache_tokens"] * LLAMA_PAGE / GIB - obs["kv_cache_gib"]) < 0.005
    assert round(obs["kv_cache_tokens"] / rec["args"]["max_model_len"], 2) == obs["max_concurrency"]
    plan, _ = predict_record(rec)
    assert plan.kv_bytes_per_token == LLAMA_PAGE


def test_the_refusal_needs_what_the_error_says():
    # 'To serve at least one request with the model's max seq len (131072), 20.0 GiB KV cache is needed, which is larger
    # than the available KV cache memory (5.11 GiB)': 131,072 tokens of 163,840 B are 20.0 GiB, and kvplan refuses too
    rec = _records()[LLAMA_FAIL]
    plan, _ = predict_record(rec)
    assert plan.args.max_model_len == 131_072
    assert plan.args.max_model_len * plan.kv_bytes_per_token / GIB == 20.0
    assert "(20.0 GiB KV cache is needed" in plan.error
    (r,) = validate_records([rec])
    assert r.predicted["fits"] is False and rec["observed"]["fits"] is False


@pytest.mark.parametrize("rid", IDS)
def test_first_scores_are_pinned(rid):
    # what kvplan scored before any change; nothing in the tool changed for these records
    (r,) = validate_records([_records()[rid]])
    for figure, pct in FIRST_SCORES[rid].items():
        assert abs(r.error_pct[figure] - pct) < 0.01, (figure, r.error_pct[figure], pct)


@pytest.mark.parametrize("rid", IDS)
def test_each_pool_lies_in_kvplans_first_start_band(rid):
    # the pods mount no compile cache, so each start compiles inside the profile: the logged pool lies between the
    # least and the most kvplan's first-start band leaves of its warm plan (plan.first_start: Inductor's copy of the
    # embedding table, 1.96 GiB for Llama-3 70B's 128,256 x 8,192, 1.08 GiB for gpt-oss's 201,088 x 2,880)
    rec = _records()[rid]
    plan, _ = predict_record(rec)
    band = plan.first_start
    assert band["modelled"]
    logged = rec["observed"]["kv_cache_gib"] * GIB
    assert band["kv_cache_bytes_least"] - 0.005 * GIB <= logged <= band["kv_cache_bytes_most"] + 0.005 * GIB
    assert logged < plan.kv_cache_bytes  # below the warm plan: the miss is the compile, not the budget


def test_the_weights_are_the_logged_ones():
    # ModelOpt FP8 Llama-3 70B: 67.70 GiB logged, 67.70 planned; gpt-oss-120b's MXFP4 experts: 61.1 written, 61.00
    recs = _records()
    for rid, tol in ((LLAMA, 0.001), (GPTOSS, 0.005)):
        plan, _ = predict_record(recs[rid])
        logged = recs[rid]["observed"]["weights_gib"]
        assert abs(plan.weights_bytes / GIB - logged) / logged < tol


def test_gpt_oss_captures_the_grid_up_to_sixteen():
    # --max-cudagraph-capture-size 16 overrides the config file's 2048: vLLM's grid up to it, five sizes
    plan, _ = predict_record(_records()[GPTOSS])
    assert any("5 capture size(s) (1, 2, 4, 8, 16)" in a for a in plan.assumptions)
