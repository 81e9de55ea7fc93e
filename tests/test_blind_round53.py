"""The blind set's fifty-third round (SOURCES-logs.md): one start, new to the blind file.

Le-Anh-Duy/vLLM-Colab-Inference commits a Google Colab notebook run with its outputs and the server log its cell wrote:
Qwen/Qwen2.5-1.5B-Instruct under vLLM 0.24.0 at gpu_memory_utilization 0.60 and the model's 32,768 tokens, on a Colab
GPU the run does not name. The log logged a 4.74 GiB pool, 177,328 tokens, 5.41x, and vLLM's own graph estimate (0.42 GiB,
'--gpu-memory-utilization=0.6000 is equivalent to 0.5710'). The card is taken as a Tesla T4 from the Triton attention
kernel the engine compiled, the pool arithmetic and that equivalence line (tested below).

At first scoring, before any change: pool -8.57 %, tokens -8.48 %, concurrency -8.45 %; given the pool, tokens +0.10 %.
"""

from kvplan.validate import predict_record, validate_records
from named_records import BLIND, planned_versions, records

RID = "qwen2.5-1.5b-instruct-t4-u060-tp1-l32k-colab"
GIB = 1024 ** 3
# the log's CUDA-graph lines: 'Estimated CUDA graph memory: 0.42 GiB total' and '--gpu-memory-utilization=0.6000 is
# equivalent to --gpu-memory-utilization=0.5710 without CUDA graph memory profiling'
LOGGED_GRAPH_ESTIMATE_GIB = 0.42
UTIL, UTIL_WITHOUT_GRAPHS = 0.6000, 0.5710


def _record():
    return records(BLIND, (RID,))[RID]


def test_planned_on_the_pinned_release():
    assert planned_versions({RID: _record()}) == {RID: "0.24.0"}


def test_given_the_pool_the_page_arithmetic_holds():
    # 28 layers x 2 KV heads x 128 x 2 (K, V) x 2 B (FP16 on a T4, which has no BF16) = 28,672 B a token; 4.74 GiB of it
    # is 177,512 tokens, the log's 177,328 within the rounding of the printed GiB (+0.10 % at first scoring)
    rec = _record()
    got = validate_records([rec], given_kv=True)[0]
    assert not got.skipped
    assert abs(got.error_pct["kv_cache_tokens"]) < 0.2
    plan, _ = predict_record(rec)
    assert plan.kv_bytes_per_token == 28 * 2 * 128 * 2 * 2
    assert any("float16 is used" in a for a in plan.assumptions)


def test_the_card_total_the_equivalence_line_implies():
    # vLLM 0.21+ prints the utilization that would leave the same pool without graph profiling: the difference times
    # the card's total is the graph estimate it subtracted. (0.6000 - 0.5710) x total = 0.42 GiB puts the total at
    # 14.29-14.68 GiB (the printed digits' rounding): kvplan's Tesla T4 total, not an L4's 22 GiB or an A100's 39.5
    plan, _ = predict_record(_record())
    total_gib = plan.total_bytes / GIB
    lo = (LOGGED_GRAPH_ESTIMATE_GIB - 0.005) / (UTIL - UTIL_WITHOUT_GRAPHS + 0.0001)
    hi = (LOGGED_GRAPH_ESTIMATE_GIB + 0.005) / (UTIL - UTIL_WITHOUT_GRAPHS - 0.0001)
    assert lo <= total_gib <= hi
    assert abs(plan.requested_bytes / plan.total_bytes - UTIL) < 1e-9


def test_the_pool_places_the_card():
    # the same record on an L4 or an A100 40GB plans a pool far from the log's (+85 % / +306 % at first scoring), on the
    # T4 within 9 %
    rec = _record()
    t4 = validate_records([rec])[0].error_pct["kv_cache_gib"]
    assert abs(t4) < 9
    for name in ("NVIDIA L4", "NVIDIA A100-SXM4-40GB"):
        other = dict(rec, gpu=dict(rec["gpu"], name=name))
        assert validate_records([other])[0].error_pct["kv_cache_gib"] > 50, name


def test_end_to_end_pool_and_where_the_miss_sits():
    # -8.57 % at first scoring: kvplan leaves 4.40 GiB of the 8.74 GiB budget for weights, non-torch memory, the
    # activation peak and graphs, the log 4.00. kvplan's graph estimate (0.65 GiB) is 0.23 GiB above the 0.42 vLLM
    # printed, about half of the 0.41 GiB miss; the rest is not traced
    rec = _record()
    got = validate_records([rec])[0]
    assert -8.57 - 1.5 < got.error_pct["kv_cache_gib"] < 0
    assert got.predicted["fits"] is True
    plan, _ = predict_record(rec)
    over = plan.cudagraph_bytes / GIB - LOGGED_GRAPH_ESTIMATE_GIB
    miss = rec["observed"]["kv_cache_gib"] - plan.kv_cache_bytes / GIB
    assert 0 < over < miss
