"""The blind set's fortieth round (SOURCES-logs.md): five starts from three repositories new to the record files.

meta-llama/Llama-3.1-8B-Instruct on an A100-SXM4-40GB (vLLM 0.15.1, ilseokoh/vllm-gce's Korean lab README on a GCE
a2-highgpu-1g, enforce_eager, 0.9, the model's own 131,072) and Qwen/Qwen2.5-7B-Instruct in float16 on a 32 GB V100
(0.18.0, wangpeiwen/gpu-util-interference's committed collector capture, enforce_eager, the 0.9 default, 32,768;
TRITON_ATTN since FlashAttention 2 needs compute capability 8) - the set's first V100 start.

Both are vllm.LLM(...) starts (args.entrypoint llm: the LLM class's 8192-token batch default, which the logs print).
At first scoring, before any change to the tool: the A100 start -0.70 % KV GiB (-0.70 % tokens, -0.29 % concurrency),
the V100 start -0.47 % (-0.50 %, -0.53 %); weights within 0.01 %; both verdicts right; given the pool, tokens within
0.03 % and concurrency within 0.41 %. (Scored as `vllm serve` starts, the entrypoint left out, the V100 start read
+3.39 %: serve's 2048-token default on that card profiles a smaller activation peak, 0.58 against 1.09 GiB.)

And three vLLM 0.29.0 `vllm serve` starts of Qwen3-14B on an L40S (samilazrak/vllm-optimization-lab's committed startup
logs, a re-run of a book's chapter-9 lab): BF16 on the defaults +12.17 % KV GiB, the AWQ checkpoint (stand-in config)
+5.27 %, AWQ at 0.95 / 512 sequences / 8192 batched tokens / block 16 +3.28 %; within 0.12 % given the pool. The BF16
start repeats the gap of extra_records.jsonl's 0.28.0 start of the same model, card and flags (+9.68 %).
"""

from kvplan.validate import predict_record, validate_records
from named_records import BLIND, planned_versions, record, records

LLAMA_A100 = "llama-3.1-8b-instruct-a100-40-u090-tp1-eager-l128k-llm"
QWEN_V100 = "qwen2.5-7b-instruct-v100-32gb-udef-tp1-fp16-eager-l32k-llm"
Q14 = "qwen3-14b-l40s-udef-tp1-l40k-v0290"
Q14_AWQ = "qwen3-14b-awq-l40s-udef-tp1-l40k-v0290"
Q14_TUNED = "qwen3-14b-awq-l40s-u095-tp1-l40k-seqs512-mbt8k-bs16-v0290"
IDS = (LLAMA_A100, QWEN_V100)
L40S_IDS = (Q14, Q14_AWQ, Q14_TUNED)


def test_two_records_with_their_printed_versions_and_the_pool_arithmetic_exact():
    recs = records(BLIND, IDS)
    assert planned_versions(recs) == {LLAMA_A100: "0.15.1", QWEN_V100: "0.18.0"}
    for r in validate_records(list(recs.values()), given_kv=True):
        assert not r.skipped
        assert abs(r.error_pct["kv_cache_tokens"]) < 0.1  # 0.03 % at most at first scoring
        assert abs(r.error_pct["max_concurrency"]) < 0.6  # 0.41 % at most (the log rounds to 0.01x)


def test_eager_starts_charge_no_cuda_graphs_and_the_pools_land():
    recs = records(BLIND, IDS)
    for r in validate_records(list(recs.values())):
        assert r.predicted["cudagraph_gib"] == 0.0  # enforce_eager: 'Cudagraph is disabled under eager mode'
        assert abs(r.error_pct["weights_gib"]) < 0.1  # 14.99 / 14.25 GiB
        assert abs(r.error_pct["kv_cache_gib"]) < 1.0  # -0.70 / -0.47 % at first scoring
        assert r.predicted["fits"] is True


def test_the_v100_start_plans_float16_on_the_32_gb_card():
    rec = record(BLIND, QWEN_V100)
    plan = predict_record(rec)[0]
    # 2 (K, V) x 28 layers x 4 KV heads x 128 x 2 B (float16) = 57,344 B per token
    assert plan.kv_bytes_per_token == 57344
    # 0.9 x the card's 31.75 GiB CUDA total, less 14.25 GiB of weights, bounds the pool from above
    (r,) = validate_records([rec])
    assert r.predicted["kv_cache_gib"] < 0.9 * 31.75 - 14.25
    # the LLM class's 8192-token batch (the log's 'max_num_batched_tokens=8192'), not serve's 2048 on this card
    assert any("max_num_batched_tokens 8192 (vllm.LLM default" in a for a in plan.assumptions)
    served = {**rec, "args": {**rec["args"], "entrypoint": None}}
    (s,) = validate_records([served])
    assert s.predicted["activation_peak_gib"] < r.predicted["activation_peak_gib"] - 0.3  # 0.58 against 1.09 GiB
    assert s.error_pct["kv_cache_gib"] > 2.5  # +3.39 %


def test_the_l40s_qwen3_14b_starts_exact_given_the_pool():
    recs = records(BLIND, L40S_IDS)
    assert set(planned_versions(recs).values()) == {"0.29.0"}
    for r in validate_records(list(recs.values()), given_kv=True):
        assert not r.skipped
        assert abs(r.error_pct["kv_cache_tokens"]) < 0.1  # 0.02 % at most at first scoring
    scored = {r.id: r for r in validate_records(list(recs.values()))}
    assert abs(scored[Q14].error_pct["weights_gib"]) < 0.1  # 27.52 GiB, exact checkpoint
    for rid in (Q14_AWQ, Q14_TUNED):
        # 9.42 against 9.44 GiB since the packed weights' allocator rests are counted (28 x 3 MiB + 0.5 under the
        # 20 MiB split limit); 9.30 (-1.47 %) before
        assert -0.5 < scored[rid].error_pct["weights_gib"] < 0
    # over at first scoring: +12.17 / +5.27 / +3.28 %; the BF16 default start about 1.35 GiB (a change that places the
    # missing profile peak should move this test with it). +9.94 % (1.10 GiB) since model runner v2's graph estimate
    # charges 0.25 MiB x 40 layers x 51 sizes + 33 MiB (0.53 GiB, the flat 0.28 before; the log's capture took 0.44)
    assert scored[Q14].error_pct["kv_cache_gib"] > 9
    assert 0 < scored[Q14_TUNED].error_pct["kv_cache_gib"] < scored[Q14_AWQ].error_pct["kv_cache_gib"] < 7
