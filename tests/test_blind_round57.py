"""The blind set's fifty-seventh round (SOURCES-logs.md): two starts, new to the blind file.

A home server's start of one author's self-hosted assistant on an RTX 3060 12 GB under vLLM 0.11.0
(Peuqui/AIfred-Intelligence-Legacy `docs/vllm/VLLM_FIX_SUMMARY.md`): Qwen3-8B-AWQ with awq_marlin at 16,384 tokens and
utilization 0.85. And one self-hosting write-up's container boot on a RunPod community RTX 3090 under
vllm/vllm-openai:v0.22.1-cu129 (javakishore-veleti/LLM-Inference-Serving-Azure-AKS `README_RUNPOD_LOGS_ANALSYS.md`):
Qwen2.5-7B-Instruct-AWQ with awq forced, float16, 4,096 tokens, 0.9, eight sequences.

At first scoring, before any change: pools -12.70 % and +4.63 %; tokens -12.65 % and +4.65 %; concurrency -12.76 %
and +4.65 %; given the pool, tokens +0.07 % and +0.02 %. Where each miss sits is tested below.
"""

from kvplan.validate import predict_record, validate_records
from named_records import BLIND, planned_versions, records

RTX3060 = "qwen3-8b-awq-rtx3060-u085-tp1-l16k-v011"
RTX3090 = "qwen2.5-7b-instruct-awq-rtx3090-u090-tp1-l4k-seqs8"
IDS = (RTX3060, RTX3090)
GIB = 1024 ** 3
BLOCK = 16
# a token's KV page: Qwen3-8B 36 layers x 8 KV heads, Qwen2.5-7B 28 x 4; head size 128, K and V, float16
PAGE = {RTX3060: 36 * 8 * 128 * 2 * 2, RTX3090: 28 * 4 * 128 * 2 * 2}
FIRST_SCORES = {RTX3060: -12.70, RTX3090: 4.63}


def _records():
    return records(BLIND, IDS)


def _token_range(pool_gib, page):
    # the block-rounded token counts a pool printed to two decimals can hold
    lo = int((pool_gib - 0.005) * GIB // (page * BLOCK)) * BLOCK
    hi = int((pool_gib + 0.005) * GIB // (page * BLOCK)) * BLOCK
    return lo, hi


def test_planned_on_the_stated_releases():
    assert planned_versions(_records()) == {RTX3060: "0.11.0", RTX3090: "0.22.1"}


def test_the_logs_own_arithmetic():
    # tokens are the printed pool in 16-token blocks of the page, and concurrency is tokens / max_model_len to two
    # decimals (22,256 / 16,384 = 1.358; 270,144 / 4,096 = 65.953)
    for rid, rec in _records().items():
        obs = rec["observed"]
        lo, hi = _token_range(obs["kv_cache_gib"], PAGE[rid])
        assert lo <= obs["kv_cache_tokens"] <= hi, rid
        assert round(obs["kv_cache_tokens"] / rec["args"]["max_model_len"], 2) == obs["max_concurrency"], rid


def test_given_the_pool_the_page_arithmetic_holds():
    # +0.07 / +0.02 % (tokens) at first scoring: the printed GiB's rounding
    recs = _records()
    for rid in IDS:
        plan, _ = predict_record(recs[rid])
        assert plan.kv_bytes_per_token == PAGE[rid], rid
        got = validate_records([recs[rid]], given_kv=True)[0]
        assert not got.skipped, rid
        assert abs(got.error_pct["kv_cache_tokens"]) < 0.2, rid
        assert abs(got.error_pct["max_concurrency"]) < 0.2, rid


def test_the_rtx3060_pool_is_short_by_the_consumed_memory():
    # -12.70 %: kvplan plans the pool 0.39 GiB short, and the shortfall is its weights + non-torch + activation peak
    # over the logged budget less the logged pool, to rounding (on kvplan's RTX 3060 total, 11.63 GiB, as vLLM prints it
    # for that card). Weights are not it: kvplan's 5.69 GiB is the author's 'Model Size: 5.7 GiB'. 0.11.0 captures its
    # graphs after the pool, so no graph term is taken; the gap is kvplan's non-torch (0.13) + activation peak (1.39 GiB
    # at the 2,048-token default batch) against about 1.13 GiB left for both in the log, not traced further
    rec = _records()[RTX3060]
    got = validate_records([rec])[0]
    assert FIRST_SCORES[RTX3060] - 1.0 < got.error_pct["kv_cache_gib"] < FIRST_SCORES[RTX3060] + 1.0
    assert got.predicted["fits"] is True
    plan, _ = predict_record(rec)
    assert plan.cudagraph_bytes == 0
    assert abs(plan.weights_bytes / GIB - 5.7) < 0.05
    mine = (plan.weights_bytes + plan.non_torch_bytes + plan.activation_peak_bytes) / GIB
    logged = plan.requested_bytes / GIB - rec["observed"]["kv_cache_gib"]
    shortfall = rec["observed"]["kv_cache_gib"] - plan.kv_cache_bytes / GIB
    assert 0.35 < shortfall < 0.45
    assert abs(shortfall - (mine - logged)) < 0.01


def test_the_rtx3090_overshoot_is_the_consumed_memory():
    # +4.63 %: kvplan's pool is 0.67 GiB over the log's (0.59 GiB, +4.1 %, since the packed weights' allocator rests
    # are counted: 5.28 GiB, -0.28 %). Its weights were 0.09 GiB under 'Model loading took 5.29 GiB'
    # (-1.78 %) and its graph estimate 0.06 under the log's 'Estimated CUDA graph memory: 0.35 GiB'; the rest, about
    # 0.51 GiB, is non-torch + activation peak (kvplan 0.64 GiB, the forced awq kernel's float16 weight copy included,
    # against about 1.15 left in the log) on the 23.58 GiB catalog total, the card's total not printed
    rec = _records()[RTX3090]
    got = validate_records([rec])[0]
    assert 0 < got.error_pct["kv_cache_gib"] < FIRST_SCORES[RTX3090] + 1.0
    assert -2.5 < got.error_pct["weights_gib"] < 0
    plan, _ = predict_record(rec)
    assert abs(plan.cudagraph_bytes / GIB - 0.35) < 0.08
    mine = (plan.weights_bytes + plan.non_torch_bytes + plan.activation_peak_bytes + plan.cudagraph_bytes) / GIB
    logged = plan.requested_bytes / GIB - rec["observed"]["kv_cache_gib"]
    overshoot = plan.kv_cache_bytes / GIB - rec["observed"]["kv_cache_gib"]
    assert abs(overshoot - (logged - mine)) < 0.01
    assert 0.5 < overshoot < 0.65
