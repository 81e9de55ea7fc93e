"""The blind set's RTX 4070 Laptop startups under WSL2 (SOURCES-logs.md, thirty-first round: GIO443/statecraft-serving
and GIO443/speculative-statecraft, Qwen2.5-1.5B-Instruct BF16 at 0.8 in vllm/vllm-openai v0.30.0 on Docker Desktop).

Four starts of one model on one card and image: the CUDA-graph default at 16,384 and at 4,096, the same with
--enforce-eager, and with n-gram speculation (k = 3). Each runs in a fresh container whose compile cache is not on a kept
volume, so the three compiled starts are most likely first (cold) starts, while kvplan plans a warm restart and states the
first start's range beside it (Plan.first_start, kvplan.plan.cudagraphs cold_start_pool_loss_bytes). What the four show at first scoring:
the eager start, where nothing compiles, is within 2 % of its logged pool; the two compiled starts without speculation
land inside the first-start range (since V1-f's non-torch constant went from 0.20 to 0.15 GiB, the median of five logged
0.27+ consumed figures, the warm plan and the range sit 0.05 GiB higher and the two starts lie 0.02-0.04 GiB below the
range's lower end); the n-gram start lies 0.23 GiB below its range, while the pool kvplan's warm plan
takes for the speculation (the two warm plans' difference) matches the logged difference within 0.1 GiB.
"""
import json
from pathlib import Path

from kvplan.resolve import GIB
from kvplan.validate import predict_record

DATA = Path(__file__).parent / "data"
MIB = 1024 * 1024


def _records():
    recs = [json.loads(line) for line in (DATA / "blind_records.jsonl").read_text().splitlines() if line.strip()]
    return {r["id"]: r for r in recs if r["id"].startswith("qwen2.5-1.5b-instruct-rtx4070laptop-wsl2-")}


def test_the_four_plan_on_the_wsl2_total():
    recs = _records()
    assert len(recs) == 4
    for rec in recs.values():
        assert rec["gpu"]["wsl2"] is True and rec["gpu"]["total_gib"] is None
        p, _ = predict_record(rec)
        # nvidia-smi's memory.total in each run's env.json, '"memory_total_mib": 8188' (resolve.py wsl2_gpu)
        assert p.total_bytes == 8188 * MIB


def test_the_eager_start_matches_its_logged_pool():
    rec = _records()["qwen2.5-1.5b-instruct-rtx4070laptop-wsl2-u080-tp1-l16k-eager"]
    p, _ = predict_record(rec)
    assert p.first_start is None  # nothing compiles, so no first-start range
    assert abs(p.kv_cache_bytes / GIB - rec["observed"]["kv_cache_gib"]) / rec["observed"]["kv_cache_gib"] < 0.03


def test_the_compiled_starts_land_in_the_first_start_range():
    recs = _records()
    for rid in ("qwen2.5-1.5b-instruct-rtx4070laptop-wsl2-u080-tp1-l16k", "qwen2.5-1.5b-instruct-rtx4070laptop-wsl2-u080-tp1-l4k"):
        rec = recs[rid]
        p, _ = predict_record(rec)
        logged = rec["observed"]["kv_cache_gib"] * GIB
        assert p.kv_cache_bytes > logged  # the warm plan is above the (most likely cold) start
        fs = p.first_start
        # the printed GiB has two decimals: half a hundredth either side. Charged 0.20 GiB of non-torch memory (V1-f's
        # constant until five 0.27+ startups logged theirs) both starts fell inside the range; charged 0.15 (their
        # median, calibration.py) the range's lower end is 1.97 GiB and the starts log 1.93 and 1.95: below it by
        # 0.04 and 0.02 GiB. With model runner v2's graph estimate (0.30.0: 0.25 MiB x 28 layers x 51 sizes + 33 MiB,
        # 0.38 GiB against the flat 0.28; a T4 start of this model logs 0.34 estimated) the range's lower end is 1.87 GiB
        # and both starts lie inside it, within the print rounding
        assert fs["kv_cache_bytes_least"] - 0.005 * GIB <= logged <= fs["kv_cache_bytes_most"] + 0.005 * GIB
        assert logged > fs["kv_cache_bytes_least"] + 0.05 * GIB  # 1.93 and 1.95 GiB against 1.87: inside by 0.06+


def test_the_ngram_cost_matches_the_logged_difference():
    recs = _records()
    base = recs["qwen2.5-1.5b-instruct-rtx4070laptop-wsl2-u080-tp1-l16k"]
    spec = recs["qwen2.5-1.5b-instruct-rtx4070laptop-wsl2-u080-tp1-l16k-ngram3"]
    assert json.loads(spec["args"]["speculative_config"])["num_speculative_tokens"] == 3
    pb, _ = predict_record(base)
    ps, _ = predict_record(spec)
    planned = (pb.kv_cache_bytes - ps.kv_cache_bytes) / GIB  # 0.66 GiB at first scoring
    logged = base["observed"]["kv_cache_gib"] - spec["observed"]["kv_cache_gib"]  # 1.93 - 1.35 = 0.58 GiB
    assert abs(planned - logged) < 0.1
