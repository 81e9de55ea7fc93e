"""The blind set's fifty-ninth round (SOURCES-logs.md): two starts, new to the blind file.

One author's Colab quick-start notebooks (dongukmoon/misc), committed with their outputs: the same offline
`LLM("gpt2", gpu_memory_utilization=0.5)` cell under vLLM 0.6.4.post1 (V0) on a Colab T4 (`vllm_quickstart.ipynb`
@8849b40) and on a Colab L4 (`vllm_quickstart_tutorial.ipynb` @03fca0f). Each prints V0's whole profile line (total,
peak torch memory, non-torch, pool), the blocks, the concurrency at 1,024 tokens and the graphs' size.

At first scoring, before any change: pools +3.53 % and +3.36 %; blocks +3.60 % and +3.34 %; weights -3.02 % on both;
given the pool, blocks +0.07 % and -0.02 %. Since kvplan plans GPT2LMHeadModel as a generator (with its sampler), the
pools are -3.15 % and -0.94 %. Where each figure sits is tested below.
"""

from kvplan.validate import predict_record, validate_records
from named_records import BLIND, planned_versions, records

T4 = "gpt2-t4-u050-tp1-l1k-colab-v064"
L4 = "gpt2-l4-u050-tp1-l1k-colab-v064"
IDS = (T4, L4)
GIB = 1024 ** 3
BLOCK = 16
MAX_LEN = 1024
# a token's KV page: gpt2's 12 layers x 12 heads x head size 64 (768 / 12), K and V, float16
PAGE = 12 * 12 * 64 * 2 * 2
FIRST_SCORES = {T4: 3.53, L4: 3.36}


def _records():
    return records(BLIND, IDS)


def _block_range(pool_gib):
    # the block counts a pool printed to two decimals can hold
    return (int((pool_gib - 0.005) * GIB // (PAGE * BLOCK)), int((pool_gib + 0.005) * GIB // (PAGE * BLOCK)))


def test_planned_on_the_stated_release():
    assert planned_versions(_records()) == {T4: "0.6.4.post1", L4: "0.6.4.post1"}


def test_the_logs_own_arithmetic():
    # blocks are the printed pool in 16-token pages of 36,864 B a token, and concurrency is blocks x 16 / 1,024 to two
    # decimals (11,861 x 16 / 1,024 = 185.33; 18,426 x 16 / 1,024 = 287.91); the pool is the profile line's budget less
    # what it charged: 0.5 x 14.75 - 6.52 = 0.855 GiB and 0.5 x 22.17 - 10.12 = 0.965 GiB over 0.2378 GiB of weights
    for rid, rec in _records().items():
        obs = rec["observed"]
        lo, hi = _block_range(obs["kv_cache_gib"])
        assert lo <= obs["num_gpu_blocks"] <= hi, rid
        assert round(obs["num_gpu_blocks"] * BLOCK / MAX_LEN, 2) == obs["max_concurrency"], rid
        consumed = rec["gpu"]["total_gib"] * rec["args"]["gpu_memory_utilization"] - obs["kv_cache_gib"]
        assert obs["weights_gib"] + obs["non_torch_gib"] < consumed, rid


def test_given_the_pool_the_page_arithmetic_holds():
    # +0.07 / -0.02 % (blocks) at first scoring: the printed GiB's rounding
    recs = _records()
    for rid in IDS:
        plan, _ = predict_record(recs[rid])
        assert plan.kv_bytes_per_token == PAGE, rid
        got = validate_records([recs[rid]], given_kv=True)[0]
        assert not got.skipped, rid
        assert abs(got.error_pct["num_gpu_blocks"]) < 0.2, rid
        assert abs(got.error_pct["max_concurrency"]) < 0.2, rid


def test_the_pools_are_within_five_percent_and_the_gap_is_the_consumed_memory():
    # +3.53 / +3.36 % at first scoring, -3.15 / -0.94 % since gpt2 is planned as a generator (its sampler's 0.48 GiB
    # charged; tests/test_generative_arch_suffixes.py): kvplan's pool differs from the log's by what kvplan's weights +
    # non-torch + activation peak differ from the profile's consumed memory (the budget less the logged pool, on the
    # logged totals). V0 captures its graphs after the pool, so no graph term is taken, and the verdicts hold
    for rid, rec in _records().items():
        got = validate_records([rec])[0]
        assert -5.0 < got.error_pct["kv_cache_gib"] < FIRST_SCORES[rid] + 1.0, rid
        assert got.predicted["fits"] is True, rid
        plan, _ = predict_record(rec)
        assert plan.cudagraph_bytes == 0, rid
        mine = (plan.weights_bytes + plan.non_torch_bytes + plan.activation_peak_bytes) / GIB
        logged = plan.requested_bytes / GIB - rec["observed"]["kv_cache_gib"]
        gap = plan.kv_cache_bytes / GIB - rec["observed"]["kv_cache_gib"]
        assert abs(gap - (logged - mine)) < 0.01, rid


def test_the_weights_are_two_and_a_half_percent_under_the_loaded_bytes():
    # -3.02 % on both at first scoring (gpt2 counted without its position table and biases, with a rotary cache it does
    # not build), -2.37 % since: 0.2322 GiB against 'Loading model weights took 0.2378 GB'. What is left (5.6 MiB) is
    # the caching allocator's: gpt2's 1-10 MiB projections are carved from shared 20 MiB segments, and a carve that
    # would leave 1 MiB or less takes the whole rest, which kvplan does not model
    for rid, rec in _records().items():
        got = validate_records([rec])[0]
        assert -2.6 < got.error_pct["weights_gib"] < -2.1, rid
