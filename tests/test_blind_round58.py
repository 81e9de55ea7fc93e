"""The blind set's fifty-eighth round (SOURCES-logs.md): three starts, new to the blind file.

One RTX 5060 Ti 16 GB under WSL2 (Docker Desktop on Windows) serving the same Typhoon 2.5 fine-tune of Qwen3-4B (BF16,
8,192 tokens), from one evaluation repository (Freshair129/Private-Runtime-Platform, docs/evidence/wp24/): vLLM 0.30.0
run by Xinference at 0.7, a start that loaded its compiled graphs from the cache; the same at Xinference's default 0.9,
the first start on that volume, which compiled; and a bare vLLM 0.29.0 container at 0.7, a first start too.

At first scoring, before any change: pools -4.00 %, +24.87 % and +79.43 %; tokens -4.05 %, +24.81 % and +79.12 %;
given the pool, tokens -0.08 %, -0.05 % and -0.30 %. Where each miss sits is tested below.
"""

import pytest

from kvplan.resolve import find_gpu
from kvplan.validate import predict_record, validate_records
from named_records import BLIND, planned_versions, records

WARM = "typhoon2.5-qwen3-4b-rtx5060ti-wsl2-u070-tp1-l8k-seqs256-xinf-v030"
COLD = "typhoon2.5-qwen3-4b-rtx5060ti-wsl2-u090-tp1-l8k-xinf-v030-cold"
V029 = "typhoon2.5-qwen3-4b-rtx5060ti-wsl2-u070-tp1-l8k-v029-cold"
IDS = (WARM, COLD, V029)
GIB = 1024 ** 3
MIB = 1024 ** 2
BLOCK = 16
# a token's KV page: 36 layers x 8 KV heads x head size 128, K and V, bfloat16
PAGE = 36 * 8 * 128 * 2 * 2
# 'Actual usage is X GiB for consumed memory (weights + non-torch), Y GiB for peak activation' in each start's log
CONSUMED = {WARM: 7.89, COLD: 8.59, V029: 8.59}
FIRST_SCORES = {WARM: -4.00, COLD: 24.87, V029: 79.43}
# the card's nvidia-smi total as the source states it ('RTX 5060 Ti, 16 311 MiB', run 2 FINDINGS.md)
NVIDIA_SMI_MIB = 16311


def _records():
    return records(BLIND, IDS)


def _token_range(pool_gib):
    # the block-rounded token counts a pool printed to two decimals can hold
    lo = int((pool_gib - 0.005) * GIB // (PAGE * BLOCK)) * BLOCK
    hi = int((pool_gib + 0.005) * GIB // (PAGE * BLOCK)) * BLOCK
    return lo, hi


def test_planned_on_the_stated_releases():
    assert planned_versions(_records()) == {WARM: "0.30.0", COLD: "0.30.0", V029: "0.29.0"}


def test_the_logs_own_arithmetic():
    # tokens are the printed pool in 16-token blocks of the page; concurrency is tokens / 8,192 to two decimals; and
    # each pool is the printed budget (utilization x the printed 15.9 GiB total) less the consumed memory and the peak
    # (11.13 - 7.89 - 0.53 = 2.71; 14.31 - 8.59 - 1.09 = 4.63; 11.13 - 8.59 - 1.09 = 1.45), to the prints' rounding
    for rid, rec in _records().items():
        obs = rec["observed"]
        lo, hi = _token_range(obs["kv_cache_gib"])
        assert lo <= obs["kv_cache_tokens"] <= hi, rid
        assert round(obs["kv_cache_tokens"] / rec["args"]["max_model_len"], 2) == obs["max_concurrency"], rid
        assert obs["weights_gib"] + obs["non_torch_gib"] == pytest.approx(CONSUMED[rid], abs=1e-9), rid
        budget = round(rec["args"]["gpu_memory_utilization"] * rec["gpu"]["total_gib"], 2)
        assert budget - CONSUMED[rid] - obs["activation_peak_gib"] == pytest.approx(obs["kv_cache_gib"], abs=0.015), rid


def test_the_printed_total_is_the_wsl2_one():
    # vLLM printed 'Free memory on device (14.8/15.9 GiB)': within 0.05 GiB of the card's 16,311 MiB nvidia-smi total
    # (15.93 GiB), and 0.4 GiB above the catalog's native CUDA total for the card (15.48 GiB), as under WSL2 elsewhere
    # (tests/test_wsl2_totals.py); the catalog holds no nvidia-smi total for this card, so the records carry the print
    card = find_gpu("NVIDIA GeForce RTX 5060Ti 16GB")
    assert card.nvidia_smi_total_mib is None
    for rid, rec in _records().items():
        assert rec["gpu"]["wsl2"] is True, rid
        total = rec["gpu"]["total_gib"]
        assert abs(total - NVIDIA_SMI_MIB * MIB / GIB) < 0.05, rid
        assert total - card.total_bytes / GIB > 0.4, rid


def test_given_the_pool_the_page_arithmetic_holds():
    # -0.08 / -0.05 / -0.30 % (tokens) at first scoring: the printed GiB's rounding (0.005 GiB of 1.45 is 0.34 %)
    recs = _records()
    for rid in IDS:
        plan, _ = predict_record(recs[rid])
        assert plan.kv_bytes_per_token == PAGE, rid
        got = validate_records([recs[rid]], given_kv=True)[0]
        assert not got.skipped, rid
        rounding_pct = 100 * 0.005 / recs[rid]["observed"]["kv_cache_gib"]
        assert abs(got.error_pct["kv_cache_tokens"]) <= max(0.2, rounding_pct), rid
        assert abs(got.error_pct["max_concurrency"]) <= max(0.2, rounding_pct), rid


def test_the_warm_start_is_within_five_percent_and_its_gap_is_the_graph_estimate():
    # -4.00 %: kvplan's pool is 0.11 GiB short. Its weights are 0.03 GiB under 'Model loading took 7.64 GiB' and its
    # non-torch 0.05 over; the rest is the CUDA-graph estimate: kvplan charges 0.48 GiB where vLLM's own estimate for
    # this start was 0.38 ('CUDA graph pool memory: 0.29 GiB (actual), 0.38 GiB (estimated)'). vLLM 0.30.0 prints that
    # estimate inside the peak (v1/worker/gpu_worker.py determine_available_memory: peak_activation_memory =
    # transient_peak_headroom + cudagraph_memory_estimate_applied), so the printed 0.53 GiB is kvplan's 0.14 GiB
    # activation peak and graph term, 0.62, less that 0.10
    rec = _records()[WARM]
    got = validate_records([rec])[0]
    assert FIRST_SCORES[WARM] - 0.5 < got.error_pct["kv_cache_gib"] < 0
    assert abs(got.error_pct["weights_gib"]) < 1.0
    plan, _ = predict_record(rec)
    mine = (plan.weights_bytes + plan.non_torch_bytes + plan.activation_peak_bytes + plan.cudagraph_bytes) / GIB
    logged = plan.requested_bytes / GIB - rec["observed"]["kv_cache_gib"]
    shortfall = rec["observed"]["kv_cache_gib"] - plan.kv_cache_bytes / GIB
    assert abs(shortfall - (mine - logged)) < 0.01
    assert 0.05 < shortfall < 0.15
    assert abs(plan.cudagraph_bytes / GIB - 0.38) < 0.12
    assert abs((plan.activation_peak_bytes + plan.cudagraph_bytes) / GIB - rec["observed"]["activation_peak_gib"]) < 0.1


@pytest.mark.parametrize("rid", [COLD, V029])
def test_the_first_starts_lie_in_kvplans_first_start_band(rid):
    # +24.87 % and +79.43 %: both compiled in the profile ('compilation: 20.24 s'; 'torch.compile took 27.73 s') and
    # both lose 1.15 GiB against kvplan's warm plan, which has no record field to select a first start. kvplan's own
    # first-start term for the model (a random copy of the 151,936 x 2,560 bf16 embedding table in Inductor's
    # benchmark, 0.72 GiB: 0.59-1.32 GiB less pool) puts each logged pool inside its band
    rec = _records()[rid]
    got = validate_records([rec])[0]
    assert FIRST_SCORES[rid] - 1.0 < got.error_pct["kv_cache_gib"] < FIRST_SCORES[rid] + 1.0
    plan, _ = predict_record(rec)
    band = plan.first_start
    assert band is not None and band["modelled"]
    assert band["kv_cache_bytes_least"] / GIB <= rec["observed"]["kv_cache_gib"] <= band["kv_cache_bytes_most"] / GIB
    loss = plan.kv_cache_bytes / GIB - rec["observed"]["kv_cache_gib"]
    assert 1.1 < loss < 1.2
    assert band["loss_bytes_least"] / GIB < loss < band["loss_bytes_most"] / GIB


def test_on_one_box_the_first_start_spends_the_embedding_copy_on_the_consumed_side():
    # the two 0.30.0 starts of the same card, image, volume and checkpoint: the first start's consumed memory is 0.70
    # GiB above the warm start's (8.59 against 7.89), the 0.72 GiB embedding copy kvplan's first-start term names, and
    # its peak 0.56 GiB above (1.09 against 0.53); together 1.26 GiB, below kvplan's 1.32 GiB top of the band (the
    # freed copy's segment held)
    recs = _records()
    plan, _ = predict_record(recs[COLD])
    copy = plan.first_start["embedding_copy_bytes"] / GIB
    more_consumed = CONSUMED[COLD] - CONSUMED[WARM]
    more_peak = recs[COLD]["observed"]["activation_peak_gib"] - recs[WARM]["observed"]["activation_peak_gib"]
    assert abs(more_consumed - copy) < 0.05
    assert more_consumed + more_peak <= plan.first_start["loss_bytes_most"] / GIB
