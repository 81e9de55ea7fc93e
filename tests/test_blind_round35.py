"""The blind set's thirty-fifth round (SOURCES-logs.md): four vLLM 0.26.0 starts on two consumer cards.

AdarGit008/mcgyvr-lab commits the whole startup log of one launch of Qwen/Qwen2.5-Coder-1.5B-Instruct-AWQ on each of
its two rigs (records/evidence/2026-08-24-resolved-config: srv2, an RTX 3060 12 GB, and srv1, a GTX 1660 SUPER 6 GB,
sm_75, a card not in kvplan's catalog; the same '--max-model-len 8192 --gpu-memory-utilization 0.85 --max-num-seqs 16
--enforce-eager'), an eager Qwen2.5-Coder-3B-Instruct-AWQ start on the GTX 1660 SUPER at 0.26.0's default 0.92
(records/evidence/2026-08-31-inventory/board3-srv1-nooff.log), and one cell of its config sweep on the RTX 3060 with
CUDA graphs (0.85, 1,024 tokens, 128 sequences), a first start in a fresh container (records/evidence/2026-08-24-config-
sweep/srv2-1.5B-stage2.jsonl: 'saved AOT compiled function', 'torch.compile took 25.78 s').

At first scoring the three eager pools were under by 1.5-4.5 % and exact given the pool: each log's closing line splits
the budget ('Actual usage is 1.1 GiB for weight, 0.13 GiB for peak activation, 0.05 GiB for non-torch memory'), and the
whole shortfall is kvplan's non-torch term (0.20 GiB for 0.20-0.26, calibration.py V1-e) against the 0.04-0.05 GiB these
starts log. The compiled start is over by 2.4 %: kvplan plans the warm restart, and the logged pool lies inside kvplan's
first-start range once that range carries the 0.05 GiB of non-torch memory its eager sibling logs.
"""

from kvplan.resolve import GIB
from kvplan.validate import predict_record
from named_records import BLIND, record, records, tokens_per_gib_error

EAGER = ("qwen2.5-coder-1.5b-instruct-awq-rtx3060-u085-tp1-eager-l8k-seqs16",
         "qwen2.5-coder-1.5b-instruct-awq-gtx1660super-u085-tp1-eager-l8k-seqs16",
         "qwen2.5-coder-3b-instruct-awq-gtx1660super-udef-tp1-eager-l2k-seqs8")
COLD = "qwen2.5-coder-1.5b-instruct-awq-rtx3060-u085-tp1-l1k-seqs128-cold"
RIDS = EAGER + (COLD,)


def test_four_records_on_0_26_rules_and_the_arithmetic_exact():
    recs = records(BLIND, RIDS)
    for rec in recs.values():
        p, _ = predict_record(rec)
        assert p.rules.version == "0.26.0"
        obs = rec["observed"]
        assert tokens_per_gib_error(p, obs) < 0.002


def test_the_eager_shortfall_is_the_non_torch_term():
    for rid in EAGER:
        rec = record(BLIND, rid)
        p, _ = predict_record(rec)
        obs = rec["observed"]
        err = (p.kv_cache_bytes / GIB - obs["kv_cache_gib"]) / obs["kv_cache_gib"]
        # under: -1.5, -3.8, -4.5 % at first scoring; -1.8, -4.6, -5.1 % since the AWQ weights carry the allocator's
        # 2 MiB-rounded rests (0.024 / 0.018 GiB more, weights now +0.13 / +0.13 / -0.09 % against the logged ones)
        assert -0.055 < err < 0
        # kvplan's terms swapped for the logged ones close the pool to within the log's rounding
        closed = (p.kv_cache_bytes / GIB + (p.non_torch_bytes / GIB - obs["non_torch_gib"])
                  + (p.weights_bytes / GIB - obs["weights_gib"])
                  + (p.activation_peak_bytes / GIB - obs["activation_peak_gib"]))
        assert abs(closed - obs["kv_cache_gib"]) < 0.02
        assert p.non_torch_bytes / GIB - obs["non_torch_gib"] > 0.1  # 0.20 planned against 0.04-0.05 logged
        assert abs(p.weights_bytes / GIB - obs["weights_gib"]) / obs["weights_gib"] < 0.025  # AWQ-Marlin: 1.08 / 1.1


def test_the_compiled_start_lies_in_the_first_start_range():
    recs = records(BLIND, RIDS)
    cold, sibling = recs[COLD], recs[EAGER[0]]
    p, _ = predict_record(cold)
    first = p.first_start
    assert first["modelled"]
    logged = cold["observed"]["kv_cache_gib"]
    err = (p.kv_cache_bytes / GIB - logged) / logged
    assert 0.01 < err < 0.03  # kvplan plans the warm restart: +2.4 %
    # with the non-torch memory the same card logs on the eager start, the first-start range holds the logged pool
    shift = p.non_torch_bytes / GIB - sibling["observed"]["non_torch_gib"]
    assert first["kv_cache_bytes_least"] / GIB + shift <= logged <= first["kv_cache_bytes_most"] / GIB + shift
