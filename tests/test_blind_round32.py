"""The blind set's thirty-second round (SOURCES-logs.md): two H100 80GB HBM3 startups.

- Kevin-Liu-01/cotcodec, Slurm job 446: Qwen3-8B BF16 with vLLM's dummy loader, 0.31.0, 0.9, 32,768, the V2 model
  runner, cold. Its log itemises the budget: 'Actual usage is 15.66 GiB for consumed memory (weights + non-torch), 2.27
  GiB for peak activation' with 'Available KV cache memory: 53.34 GiB' of 'Desired ... (0.9, 71.27 GiB)', and the
  CUDA-graph estimate that profiling charges ('equivalent to --gpu-memory-utilization=0.8903', 0.77 GiB; 'CUDA graph pool
  memory: 0.41 GiB (actual), 0.77 GiB (estimated)').
- stannum13/adapter-cache-tradeoffs: Qwen2.5-7B-Instruct, 0.23.0, 0.9, 4,096, --enable-lora with ten rank-8 adapters
  (max_loras not stated).

At first scoring both pools were within 1 % (+0.99, +0.85) and exact given the pool. The Qwen3-8B miss is the graph
estimate: kvplan's activation peak equals the log's peak less the estimate (2.27 - 0.77 = 1.50 GiB), while kvplan's
estimate is 0.28 GiB against the logged 0.77.
"""

from kvplan.resolve import GIB
from kvplan.validate import predict_record
from named_records import BLIND, record, records, tokens_per_gib_error

QWEN3 = "qwen3-8b-dummy-h100-u090-tp1-l32k-seqs256-mbt16k-cold"
LORA = "qwen2.5-7b-instruct-lora-h100-u090-tp1-l4k"
RIDS = (QWEN3, LORA)


def test_both_pools_within_one_and_a_half_percent_and_the_arithmetic_exact():
    recs = records(BLIND, RIDS)
    for rec in recs.values():
        p, _ = predict_record(rec)
        obs = rec["observed"]
        assert abs(p.kv_cache_bytes / GIB - obs["kv_cache_gib"]) / obs["kv_cache_gib"] < 0.015
        # the pool's page arithmetic: tokens per GiB of pool as the log's, within the rounding of the printed GiB
        assert tokens_per_gib_error(p, obs) < 0.002


def test_the_qwen3_budget_splits_as_the_log_itemises_it():
    rec = record(BLIND, QWEN3)
    p, _ = predict_record(rec)
    assert p.rules.version == "0.31.0"
    # weights within 0.01 GiB of 'Model loading took 15.27 GiB'; weights + non-torch within 0.1 GiB of 15.66
    assert abs(p.weights_bytes / GIB - 15.27) < 0.01
    assert abs((p.weights_bytes + p.non_torch_bytes) / GIB - 15.66) < 0.1
    # the log's 2.27 GiB 'peak activation' holds the 0.77 GiB graph estimate (71.27 - 15.66 - 2.27 = 53.34):
    # kvplan's activation peak is the rest, within 0.05 GiB
    assert abs(71.27 - 15.66 - 2.27 - 53.34) < 0.005
    assert abs(p.activation_peak_bytes / GIB - (2.27 - 0.77)) < 0.05
    # kvplan's graph estimate is below the logged one: the +1 % of the pool (an open lead, SOURCES-logs.md)
    assert p.cudagraph_bytes / GIB < 0.77
