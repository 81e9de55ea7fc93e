"""The dense forward's live set at the profile's MLP: T x dtype x (3 H + 3 I / TP) (plan.term_features).

Besides gate_up's output (2 I) and SiluAndMul's (I), three T x H tensors are alive. Eager (V0, --enforce-eager): the
residual (updated in place by fused_add_rms_norm), the attention output that post_attention_layernorm normalises in place
and LlamaDecoderLayer.forward hands to self.mlp, and the layer's input, which LlamaModel.forward's loop variable still
holds while the layer runs (models/llama.py, 0.6.4.post1 / 0.7.2 / 0.17.0 wheels). Compiled (V1): the piece after an
attention op (compilation/backends.py split_graph, torch.fx split_module) takes the attention output and the residual
as inputs, held by the split module while the piece runs, and keeps the new residual for the layer's last add.
kvplan counted two until the thirtieth blind round's 65,536-token MIG start (SOURCES-logs.md) showed the gap.
"""
import json
from dataclasses import replace
from pathlib import Path

import pytest

from kvplan.calibration import COEFFICIENTS, GIB
from kvplan.plan import term_features
from kvplan.validate import predict_record
from named_records import record

DATA = Path(__file__).parent / "data"
CALIBRATION = DATA / "calibration.jsonl"  # a copy of shared/data/vllm_logs/calibration.jsonl


def test_the_live_set_counts_three_hidden_rows_beside_the_mlp():
    rec = record(DATA / "blind_records.jsonl", "llama-3.1-8b-instruct-h200nvl-mig3g71-udef-tp1-l2668-mbt64k-llm-cold")
    p, _ = predict_record(rec)
    f = term_features(p.model, p.gpu, p.args, p.rules)
    assert p.args.max_num_batched_tokens == 65536
    assert f.forward_bytes == 65536 * 2 * (3 * 4096 + 3 * 14336)  # 6.75 GiB (6.25 with two T x H)
    assert p.activation_peak_bytes == pytest.approx(f.forward_bytes, abs=1)
    assert "(3 x 4096 + 3 x 14336/1)" in next(t for t in p.terms if t.name == "activation_peak").formula
    tp2 = term_features(p.model, p.gpu, replace(p.args, tensor_parallel_size=2), p.rules)
    assert tp2.forward_bytes == 65536 * 2 * (3 * 4096 + 3 * 14336 / 2)  # the hidden rows are whole on every rank


def test_the_65536_token_mig_start_moves_toward_its_log():
    # logged 40.34 GiB; kvplan planned 41.41 (+2.64 %) with two T x H tensors, 40.91 (+1.4 %) with three; the rest is
    # inside the first start's compile range the plan states
    rec = record(DATA / "blind_records.jsonl", "llama-3.1-8b-instruct-h200nvl-mig3g71-udef-tp1-l2668-mbt64k-llm-cold")
    p, _ = predict_record(rec)
    err = p.kv_cache_bytes / GIB / rec["observed"]["kv_cache_gib"] - 1
    assert 0.0 < err < 0.015
    low, high = p.first_start["kv_cache_bytes_least"], p.first_start["kv_cache_bytes_most"]
    assert low <= rec["observed"]["kv_cache_gib"] * GIB <= high


def test_the_v0_6_4_llama_peaks_are_the_live_set_and_the_constant_is_their_logged_non_torch():
    # Llama-3.1-8B on an RTX 3090, vLLM 0.6.4 (vllm issue #10517): peak_torch_memory 17.06 / 17.98 GiB less the 14.99 GiB
    # of weights at T 20,000 / 29,000 (no chunked prefill: T = max_model_len), 'non_torch_memory takes 0.35GiB'
    for rid, logged in (("llama-3.1-8b-instruct-rtx3090-u090-tpx", 17.06 - 14.99),
                        ("llama-3.1-8b-instruct-rtx3090-u090-tpx-l28k", 17.98 - 14.99)):
        rec = record(CALIBRATION, rid)
        p, _ = predict_record(rec)
        assert p.era in ("V0-a", "V0-b")
        assert abs(p.activation_peak_bytes / GIB - logged) < 0.02, rid  # two T x H rows: 0.16 / 0.22 GiB short
        assert p.non_torch_bytes / GIB == pytest.approx(rec["observed"]["non_torch_gib"], abs=0.005)
        assert abs(p.kv_cache_bytes / GIB - rec["observed"]["kv_cache_gib"]) < 0.03, rid
    assert COEFFICIENTS["V0-a"].n_const == COEFFICIENTS["V0-b"].n_const == pytest.approx(0.35 * GIB)


def test_an_eager_v1_start_logs_the_live_set():
    # Qwen2.5-3B-Instruct-AWQ, vLLM 0.30.0, --enforce-eager, T 2048: 'peak activation' 0.15 GiB; the live set with three
    # T x H rows is 0.149 GiB, with two 0.141. Eager Qwen2MLP holds gate_up through down_proj (plan.dense_hidden_rows):
    # kvplan counts down_proj's output too, 4 H + 3 I = 0.157 GiB, which vLLM would print as 0.16. Not explained: the
    # same source (models/qwen2.py Qwen2MLP.forward, 0.30.0 wheel) and the 0.29.0 eager Qwen3-8B start (0.41 logged,
    # 4 H + 3 I 0.406, 3 H + 3 I 0.375) say four rows; 0.30.0 logs torch's peak less what is allocated after the
    # profile (utils/mem_utils.py memory_profiling transient_peak_headroom), so a T x H-sized (8 MiB) allocation kept
    # from after the peak would account for it
    rec = record(DATA / "blind_records.jsonl", "qwen2.5-3b-instruct-awq-8gb-u045-tp1-eager-l1k")
    p, _ = predict_record(rec)
    assert p.activation_peak_bytes == 2048 * 2 * (4 * 2048 + 3 * 11008)
    assert abs(p.activation_peak_bytes / GIB - rec["observed"]["activation_peak_gib"]) < 0.01


def test_the_records_keep_their_ids():
    # the records these tests read are still in their files under these ids
    ids = {json.loads(line)["id"] for line in (DATA / "blind_records.jsonl").read_text().splitlines() if line.strip()}
    assert {"llama-3.1-8b-instruct-h200nvl-mig3g71-udef-tp1-l2668-mbt64k-llm-cold",
            "qwen2.5-3b-instruct-awq-8gb-u045-tp1-eager-l1k"} <= ids
