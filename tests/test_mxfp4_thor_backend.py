"""gpt-oss's MXFP4 experts on compute capability 11.x (Jetson Thor): the 0.33.0 wheel runs them on the OAI Triton
kernels (fused_moe/oracle/mxfp4.py _get_priority_backends_for_gpt_oss moves TRITON behind MARLIN on family 120 only;
the kernels take 9.0 <= cc < 13.0), held in triton_kernels' Blackwell layouts; the 0.34.0 wheel moves TRITON behind
MARLIN on family 110 too, so Thor holds them as Marlin's 128 x 256-padded repack again (versions.py
mxfp4_triton_cc_majors, weights.mxfp4_expert_layout)."""

from __future__ import annotations

import pytest

import kvplan
from kvplan.plan import term_features
from kvplan.resolve import resolve_model
from kvplan.versions import rules_for
from kvplan.weights import mxfp4_expert_layout, mxfp4_moe_backend

THOR = "Jetson AGX Thor"


def test_rules_row_follows_the_wheels():
    assert [rules_for(v).mxfp4_triton_cc_majors for v in ("0.32.0", "0.33.0", "0.34.0")] == [(), (11,), ()]


def test_backend_on_thor_by_release():
    for version, backend in (("0.33.0", "triton"), ("0.34.0", "marlin")):
        majors = rules_for(version).mxfp4_triton_cc_majors
        assert mxfp4_moe_backend((11, 0), "triton", False, majors) == backend
        # VLLM_MXFP4_USE_MARLIN=1 still forces Marlin, and the other GPUs keep theirs
        assert mxfp4_moe_backend((11, 0), "triton", True, majors) == "marlin"
        assert mxfp4_moe_backend((12, 0), "triton", False, majors) == "marlin"
        assert mxfp4_moe_backend((10, 0), "triton", False, majors) == "flashinfer"
        assert mxfp4_moe_backend((9, 0), "triton", False, majors) == "triton"


def test_blackwell_layout_hand_count():
    m = resolve_model("openai/gpt-oss-120b")
    h = i = 2880
    unpadded = 3 * h * i * (0.5 + 1 / 32)
    lay = mxfp4_expert_layout(m, 1, (11, 0), "triton", keeps_scales=False, triton_cc_majors=(11,))
    # values: the contiguous h / 2 = 1440 bytes of gate_up and i / 2 = 1440 bytes of down padded to 128 -> 1536
    w13, w2 = 1536 * 2 * i, 1536 * h
    # scales, transposed to (K, N): gate_up (90 -> 96, 5760), down (90 -> 96, 2880 -> 2944)
    scales = 96 * 5760 + 96 * 2944
    assert (lay.i_pad, lay.h_pad, lay.bias_bytes) == (2880, 2880, 4)
    assert lay.factor == pytest.approx((w13 + w2 + scales) / unpadded)
    assert "Blackwell" in lay.backend
    # 0.34.0: Marlin's repack
    lay = mxfp4_expert_layout(m, 1, (11, 0), "triton", keeps_scales=False, triton_cc_majors=())
    assert (lay.backend, lay.i_pad, lay.h_pad, lay.bias_bytes) == ("Marlin", 2944, 3072, 2)


def test_fit_on_thor_weights_and_workspace_move_with_the_backend():
    plans = {v: kvplan.fit("openai/gpt-oss-120b", THOR, vllm_version=v, max_model_len=8192, fixes=False)
             for v in ("0.33.0", "0.34.0")}
    # 36 MoE layers x 128 experts: Marlin's 2944 x 3072 against the Blackwell layouts' bytes, and the expert biases:
    # bf16 at the padded sizes (Marlin) against float32 at the model's (Triton)
    experts = 36 * 128
    marlin = 3 * 2944 * 3072 * (0.5 + 1 / 32) + (2 * 2944 + 3072) * 2
    triton = 1536 * 2 * 2880 + 1536 * 2880 + 96 * 5760 + 96 * 2944 + (2 * 2880 + 2880) * 4
    expected = experts * (marlin - triton)
    moved = plans["0.34.0"].weights_bytes - plans["0.33.0"].weights_bytes
    assert moved == pytest.approx(expected, rel=1e-6)
    # Marlin's experts take their buffers from the WorkspaceManager (rules moe_quant_workspace "mxfp4_marlin"); the
    # Triton kernels allocate per call
    ws = {v: term_features(p.model, p.gpu, p.args, p.rules).moe_workspace_bytes for v, p in plans.items()}
    assert ws["0.33.0"] == 0 and ws["0.34.0"] > 0
