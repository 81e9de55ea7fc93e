"""The blind set's forty-first round (SOURCES-logs.md): four starts from one repository new to the record files.

kyuz0/amd-r9700-vllm-toolboxes, a vLLM toolbox for AMD's Radeon AI PRO R9700 whose benchmark harness commits each
run's whole server log, also ran on NVIDIA cards for comparison: vLLM 0.12.0 (a release the set had two starts of)
with meta-llama/Meta-Llama-3.1-8B-Instruct on an RTX 5000 Ada (the set's first) and an A100 40GB, and
openai/gpt-oss-20b (MXFP4, Marlin MoE, TRITON_ATTN) on an A100 40GB and an RTX 3090. All four are cold starts.
Its R9700 (gfx1201) logs, TP1 and TP2, were left out: the card is not in kvplan's catalog and no log prints its total.

At first scoring, before any change: weights within 0.13 %, the pools -0.35 / +0.28 / +0.55 / +0.04 %, every verdict
right; given the pool, tokens within 0.03 % and concurrency within 0.15 %.
"""

from kvplan.validate import validate_records
from named_records import BLIND, planned_versions, records

LLAMA_ADA = "llama-3.1-8b-instruct-rtx5000ada-u095-tp1-l64k-seqs64-v0120"
OSS_A100 = "gpt-oss-20b-a100-40gb-udef-tp1-l24k-seqs64-v0120"
OSS_3090 = "gpt-oss-20b-rtx3090-udef-tp1-l16k-seqs32-v0120"
LLAMA_A100 = "llama-3.1-8b-instruct-a100-40gb-u095-tp1-l64k-seqs64-v0120"
IDS = (LLAMA_ADA, OSS_A100, OSS_3090, LLAMA_A100)


def test_four_records_on_0_12_0_and_the_pool_arithmetic_exact():
    recs = records(BLIND, IDS)
    assert set(planned_versions(recs).values()) == {"0.12.0"}
    for r in validate_records(list(recs.values()), given_kv=True):
        assert not r.skipped
        assert abs(r.error_pct["kv_cache_tokens"]) < 0.1  # 0.03 % at most at first scoring
        assert abs(r.error_pct["max_concurrency"]) < 0.3  # 0.15 % (1.81x printed to two decimals)


def test_weights_pools_and_verdicts_end_to_end():
    for r in validate_records(list(records(BLIND, IDS).values())):
        assert abs(r.error_pct["weights_gib"]) < 0.5  # 14.9889 / 13.7025 / 13.7194 GiB
        assert abs(r.error_pct["kv_cache_gib"]) < 1.5  # -0.35 / +0.28 / +0.55 / +0.04 % at first scoring
        assert r.predicted["fits"] is True


def test_the_same_model_and_flags_on_two_cards_keep_their_order():
    recs = records(BLIND, IDS)
    ada, a100 = validate_records([recs[LLAMA_ADA], recs[LLAMA_A100]])
    # the same command (65,536 tokens, 0.95, 64 sequences): 14.46 GiB on the 32 GB RTX 5000 Ada, 21.99 on the A100 40GB
    assert 7.0 < a100.predicted["kv_cache_gib"] - ada.predicted["kv_cache_gib"] < 8.0
