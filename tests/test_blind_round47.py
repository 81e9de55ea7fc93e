"""The blind set's forty-seventh round (SOURCES-logs.md): three starts, new to the blind file.

jamesjordanmarketing/v4-show @ab7ced2 commits a RunPod serverless endpoint's whole worker logs beside the support
tickets they were written for (pmc/product/_mapping/pipeline/workfiles/): mistralai/Mistral-7B-Instruct-v0.2 BF16 with
LoRA (one slot of rank 16) under vLLM 0.14.0 (image madiatorlabs/worker-v1-vllm:v0.14.0), 4,096 tokens, 0.95, 256
sequences and 4,096 batched tokens, each stated in the worker's printed AsyncEngineArgs. One cold start on an L40S
(28.13 GiB, 230,416 tokens, 56.25x; graphs 1.26 GiB) and a measured cold / warm pair on a 96 GB RTX PRO 6000 Blackwell
(75.99 / 76.14 GiB, 622,464 / 623,744 tokens) whose FULL graph capture then dies of a PTX-toolchain error.

At first scoring, before any change: pool -0.58 % (L40S), +0.14 % (cold) and -0.06 % (warm); weights -0.02 %; given
the pool, tokens within 0.01 %. kvplan's first-start range (0.00-0.24 GiB) holds the pair's 0.15 GiB.
"""

from kvplan.validate import validate_records
from named_records import BLIND, planned_versions, records

L40S = "mistral-7b-instruct-v0.2-lora-l40s-u095-tp1-l4k-cold"
COLD = "mistral-7b-instruct-v0.2-lora-rtxpro6000-u095-tp1-l4k-cold"
WARM = "mistral-7b-instruct-v0.2-lora-rtxpro6000-u095-tp1-l4k-warm"
RIDS = (L40S, COLD, WARM)


def test_planned_on_the_release_the_banner_prints():
    assert planned_versions(records(BLIND, RIDS)) == {rid: "0.14.0" for rid in RIDS}


def test_given_the_pool_the_page_arithmetic_holds():
    for res in validate_records(list(records(BLIND, RIDS).values()), given_kv=True):
        assert not res.skipped
        # 16-token blocks of 128 KiB per token: the printed GiB's rounding (0.005 / 28.13) is below 0.02 %
        assert abs(res.error_pct["kv_cache_tokens"]) < 0.05, res.id  # <= 0.007 % at first scoring


def test_end_to_end_weights_pool_and_verdict():
    got = {res.id: res for res in validate_records(list(records(BLIND, RIDS).values()))}
    for rid, bound in ((L40S, 1.5), (COLD, 1.0), (WARM, 1.0)):  # -0.58 / +0.14 / -0.06 % at first scoring
        res = got[rid]
        assert abs(res.error_pct["weights_gib"]) < 0.5  # -0.02 %: the LoRA slots (0.08 GiB) counted
        assert abs(res.error_pct["kv_cache_gib"]) < bound, rid
        assert res.predicted["fits"] is True


def test_the_warm_plan_sits_between_the_measured_cold_and_warm_pools():
    # one worker, one compile cache (b696d54b88): the cold start's 75.99 GiB, then the warm start's 76.14 GiB; kvplan plans
    # the warm start
    got = {res.id: res for res in validate_records(list(records(BLIND, RIDS).values()))}
    assert got[COLD].predicted["kv_cache_gib"] == got[WARM].predicted["kv_cache_gib"]
    assert 75.99 < got[WARM].predicted["kv_cache_gib"] < 76.14 + 0.1
