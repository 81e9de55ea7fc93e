"""The blind set's fifty-fourth round (SOURCES-logs.md): four starts of vLLM 0.30.0 and 0.31.0, new to the blind file.

- walidelkhatib/llm-inference-benchmarks README @0fcbfde: Qwen/Qwen3-8B on one A10G (g5.xlarge) under 0.30.0 with every
  default but --max-model-len 8192: 3.16 GiB, 23,040 tokens, 2.81x; the README's table of the startup log gives the
  budget (20.3 GiB of 22.06), weights + non-torch 15.52 GiB and a 1.62 GiB peak.
- xbill9/gemma4-dev @3d14b9a: Google's QAT Gemma-4-26B-A4B repacked to compressed-tensors W4A16 (int4, group 32; the
  checkpoint's own config.json is committed) on one L4 under 0.30.0, text only, 2,048 tokens, 16 sequences: 'Model
  loading took 14.8 GiB', 17,990 tokens, 8.78x (no pool GiB quoted).
- fillipeml/qlora-serving-lab results/vllm.json @31b7b83: Qwen2.5-0.5B-Instruct on a GTX 1660 Ti under WSL2, 0.31.0,
  eager, utilization 0.78, 2,048 tokens, 16 sequences, once in float32 (111,616 tokens, 54.50x) and once in float16
  (311,264 tokens, 151.98x).

At first scoring, before any change: A10G pool +28.47 %, tokens +28.26 % (given the pool, tokens -0.14 %); the L4 Gemma
weights +13.69 %, tokens -21.15 %; the GTX 1660 Ti tokens -1.53 % (float32) and -0.99 % (float16).
"""

from kvplan.validate import predict_record, validate_records
from named_records import BLIND, planned_versions, records

A10G = "qwen3-8b-a10g-udef-tp1-l8k"
GEMMA = "gemma-4-26b-a4b-it-qat-w4a16-l4-udef-tp1-l2k-seqs16"
FP32 = "qwen2.5-0.5b-instruct-gtx1660ti-wsl2-u078-tp1-eager-fp32-l2k-seqs16"
FP16 = "qwen2.5-0.5b-instruct-gtx1660ti-wsl2-u078-tp1-eager-fp16-l2k-seqs16"
IDS = (A10G, GEMMA, FP32, FP16)
GIB = 1024 ** 3
# the A10G README's table 'From the vLLM startup log': weights + non-torch overhead, peak activations
A10G_CONSUMED_GIB, A10G_PEAK_GIB = 15.52, 1.62
# the GTX 1660 Ti README: '0.85 asks for 5.1 GiB of the 5.01 GiB that exist' (vLLM's refusal at utilization 0.85)
REFUSED_UTIL, REFUSED_ASK_GIB = 0.85, 5.1


def _recs():
    return records(BLIND, IDS)


def test_planned_on_the_pinned_releases():
    assert planned_versions(_recs()) == {A10G: "0.30.0", GEMMA: "0.30.0", FP32: "0.31.0", FP16: "0.31.0"}


def test_given_the_a10g_pool_the_page_arithmetic_holds():
    # 36 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 147,456 B a token: 3.16 GiB is 23,010 tokens, the log's 23,040
    # within the printed GiB's rounding (-0.14 % at first scoring)
    rec = _recs()[A10G]
    got = validate_records([rec], given_kv=True)[0]
    assert not got.skipped
    assert abs(got.error_pct["kv_cache_tokens"]) < 0.3
    plan, _ = predict_record(rec)
    assert plan.kv_bytes_per_token == 36 * 8 * 128 * 2 * 2


def test_a10g_end_to_end_is_a_first_start_kvplan_plans_warm():
    # +28.47 % at first scoring: kvplan plans a warm start (0.19 GiB peak) and charges a 0.48 GiB graph estimate the
    # README's table does not (20.3 - 15.52 - 1.62 = 3.16); the log's peak is a first start's. The consumed memory agrees
    # within 0.1 GiB, and the logged pool sits just above the top of kvplan's own first-start range (1.91-3.07 GiB)
    rec = _recs()[A10G]
    got = validate_records([rec])[0]
    assert 0 < got.error_pct["kv_cache_gib"] < 28.47 + 1.5
    plan, _ = predict_record(rec)
    consumed = (plan.weights_bytes + plan.non_torch_bytes) / GIB
    assert abs(consumed - A10G_CONSUMED_GIB) < 0.1
    assert plan.activation_peak_bytes / GIB < A10G_PEAK_GIB - 1.0
    logged = rec["observed"]["kv_cache_gib"]
    assert plan.first_start["kv_cache_bytes_least"] / GIB < logged < plan.first_start["kv_cache_bytes_most"] / GIB + 0.15
    # the table's own arithmetic: the budget less consumed memory and peak is the pool, no graph term in it
    assert abs(0.92 * rec["gpu"]["total_gib"] - A10G_CONSUMED_GIB - A10G_PEAK_GIB - logged) < 0.02


def test_gemma_text_only_int4_miss_is_a_first_start_once_the_weights_are_read_right():
    # -21.15 % tokens at first scoring: kvplan counted 16.83 GiB of weights (text only: no vision tower) against the
    # log's 14.8. The ignore list names the vision tower's self_attn / mlp projections and every layer's router; the
    # older skip-list reading pooled the dotted parts of all entries and so kept the text layers' attention and dense
    # MLP in 16 bits. Read as vLLM reads it (the whole module name), the weights land within 1.5 % of the log, and the
    # pool is then a warm start's, above the log by kvplan's own least first-start loss (Inductor's copy of the
    # 1.38 GiB embedding table, 1.24 GiB above the profile's peak): that loss gives the logged tokens
    rec = _recs()[GEMMA]
    got = validate_records([rec])[0]
    assert abs(got.error_pct["weights_gib"]) < 1.5
    assert got.error_pct["kv_cache_tokens"] > 0
    plan, _ = predict_record(rec)
    assert any("text-only mode" in a for a in plan.assumptions)
    per_gib = plan.kv_cache_tokens / (plan.kv_cache_bytes / GIB)
    pool = (plan.kv_cache_bytes - plan.first_start["loss_bytes_least"]) / GIB
    assert abs(pool * per_gib / rec["observed"]["kv_cache_tokens"] - 1) < 0.05


def test_the_1660ti_total_is_the_one_the_refusal_printed():
    # a card the catalog lacks: the record's 6.0 GiB is vLLM's 5.1 GiB at 0.85 (5.099-5.101 of the printed digits),
    # and under WSL2 CUDA's total is nvidia-smi's: the card's 6,144 MiB
    for rid in (FP32, FP16):
        rec = _recs()[rid]
        assert rec["gpu"]["wsl2"] is True
        total = rec["gpu"]["total_gib"]
        assert abs(REFUSED_UTIL * total - REFUSED_ASK_GIB) < 0.005
        assert total * 1024 == 6144


def test_the_1660ti_dtypes_page_and_pool_arithmetic():
    # 24 layers x 2 KV heads x 64 x 2 (K, V) x 4 B (float32) = 24,576 B a token, 12,288 in float16; end to end the tokens
    # land within 2 % of both logs (-1.53 / -0.99 % at first scoring), and the float16 start's extra pool over the
    # float32 one (mostly the halved weights) is the logs' within 0.05 GiB
    recs = _recs()
    plans = {rid: predict_record(recs[rid])[0] for rid in (FP32, FP16)}
    assert plans[FP32].kv_bytes_per_token == 24 * 2 * 64 * 2 * 4
    assert plans[FP16].kv_bytes_per_token == 24 * 2 * 64 * 2 * 2
    for rid in (FP32, FP16):
        assert abs(validate_records([recs[rid]])[0].error_pct["kv_cache_tokens"]) < 2
    logged = {rid: recs[rid]["observed"]["kv_cache_tokens"] * plans[rid].kv_bytes_per_token / GIB for rid in (FP32, FP16)}
    planned = {rid: plans[rid].kv_cache_bytes / GIB for rid in (FP32, FP16)}
    assert abs((planned[FP16] - planned[FP32]) - (logged[FP16] - logged[FP32])) < 0.05
