"""gpt-oss's MXFP4 experts as each backend holds them after loading (weights.mxfp4_expert_layout): Marlin's padded
repack, the Triton kernels' swizzle (with the loaded block scales kept beside it until 0.25 and a 64-byte pre-pad in the
0.17-0.21 vendored triton_kernels), the expert biases (float32 for the Triton kernels) and the float32 rotary cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kvplan.resolve import resolve_model
from kvplan.validate import predict_record
from kvplan.versions import rules_for
from kvplan.weights import _rotary_bytes, count_weights, mxfp4_expert_layout, weights_per_rank
from repo_scripts import source_dated_version

GIB = 1024 ** 3
MIB = 1024 ** 2
ROOT = Path(__file__).parent


def _records():
    out = []
    for f in (ROOT.parent.parent / "shared/data/vllm_logs/calibration.jsonl", ROOT / "data/extra_records.jsonl",
              ROOT / "data/blind_records.jsonl"):
        if f.exists():
            out += [json.loads(l) for l in f.read_text().splitlines() if l.strip()]
    return out


def test_rules_rows_follow_the_wheels():
    assert [rules_for(v).mxfp4_triton_keeps_scales for v in ("0.14.1", "0.19.0", "0.24.0", "0.25.0", "0.33.0")] == \
        [True, True, True, False, False]
    assert [rules_for(v).mxfp4_triton_swizzle_align for v in ("0.16.0", "0.17.0", "0.21.0", "0.22.0")] == [1, 64, 64, 1]


def test_marlin_pads_to_128_by_256_and_keeps_bf16_biases():
    m = resolve_model("openai/gpt-oss-20b")
    lay = mxfp4_expert_layout(m, 1, (8, 0))
    assert (lay.backend, lay.i_pad, lay.h_pad, lay.bias_bytes) == ("Marlin", 2944, 3072, 2)
    assert lay.factor == pytest.approx(2944 * 3072 / (2880 * 2880))
    # two bias tensors per MoE layer: w13 (E x 2 i) split over TP, w2 (E x h) whole on every rank
    bias = [c for c in count_weights(m).components if c.kind == "expert_bias"]
    assert len(bias) == 2 * 24 and sum(c.params for c in bias) == 24 * 32 * (2 * 2880 + 2880)


def test_triton_swizzle_sizes_and_kept_scales():
    m = resolve_model("openai/gpt-oss-20b")
    unpadded = 3 * 2880 * 1440 * (0.5 + 1 / 32)
    # TP2: i = 1440 -> 1472 at creation; the 64-byte pre-pad makes h / 2 = 1440 bytes 1472, i / 2 = 736 bytes 768
    lay = mxfp4_expert_layout(m, 2, (9, 0), "triton", keeps_scales=True, swizzle_align=64)
    w13, w2 = 2 * 1472 * 1472, 2880 * 768
    scales = 3072 * 90 + 3072 * 46            # rows padded to 256, columns to 2
    kept = 2 * 1472 * 90 + 2880 * 46          # the loaded scales, still on the layer
    assert lay.factor == pytest.approx((w13 + w2 + scales + kept) / unpadded)
    assert lay.bias_bytes == 4
    # no pre-pad, scales freed (0.25+): the swizzle pads only to its 16 x 32-byte tile
    lay = mxfp4_expert_layout(m, 2, (9, 0), "triton", keeps_scales=False, swizzle_align=1)
    assert lay.factor == pytest.approx((2 * 1472 * 1440 + 2880 * 736 + scales) / unpadded)


def test_rotary_cache_is_float32():
    m = resolve_model("openai/gpt-oss-20b")
    assert _rotary_bytes(m, 2) == 131072 * 64 * 4 == 32 * MIB


def test_newer_releases_free_the_scales():
    m = resolve_model("openai/gpt-oss-120b")
    kept = weights_per_rank(m, gpu_cc=(9, 0), mxfp4_triton_keeps_scales=True).bytes
    freed = weights_per_rank(m, gpu_cc=(9, 0), mxfp4_triton_keeps_scales=False).bytes
    # 36 layers x 128 experts x (2 x 2880 x 90 + 2880 x 90) bytes of loaded scales
    assert kept - freed == 36 * 128 * 3 * 2880 * 90


@pytest.mark.parametrize("rid", ["gpt-oss-20b-a100-u065-tpx", "gpt-oss-120b-a100-80-u080-tp4",
                                 "gpt-oss-20b-abliterated-gb10-u025-tp1-l8k", "gpt-oss-20b-h100-udef-tp2-l8k-noprefix",
                                 "gpt-oss-20b-h100-u090-tp1-l16k", "gpt-oss-120b-h100-u095-tp1-l16k",
                                 "gpt-oss-120b-h100-u096-tp1-l96k", "gpt-oss-120b-h200-u085-tp2"])
def test_logged_weights_within_a_third_of_a_percent(rid):
    rec = next((r for r in _records() if r["id"] == rid), None)
    if rec is None:
        pytest.skip("record file not here")
    # on the release that ran: llm-d's H100 records state none, their report's commit dates them (0.14.1)
    plan, _ = predict_record(rec, version=source_dated_version(rec))
    logged = rec["observed"]["weights_gib"]
    assert abs(plan.weights_bytes / GIB - logged) / logged < 0.0035, plan.weights_bytes / GIB
