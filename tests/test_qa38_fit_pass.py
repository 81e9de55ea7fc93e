"""A pass over fitting 70B-class models onto the GPUs at hand: quantization names, speculative and LoRA settings,
long contexts and the errors of a failed start."""

from __future__ import annotations

import pytest

import kvplan
from kvplan.errors import InputError


@pytest.mark.parametrize("name, scales", [("fp8_per_tensor", "per tensor"), ("fp8_per_channel", "per output channel"),
                                          ("fp8_per_block", "per 128x128 block")])
def test_vllms_online_fp8_shorthands_quantize_an_unquantized_checkpoint(name, scales):
    """vLLM 0.31-0.33 reads `--quantization fp8` on a bf16 checkpoint as fp8_per_tensor and warns to spell it so
    (model_loader/weight_utils.py get_quant_config); the shorthand must plan as the online FP8 it is, not be refused."""
    fp8 = kvplan.fit("Qwen/Qwen3-32B", "L40S", quantization="fp8", max_model_len=8192, fixes=False)
    p = kvplan.fit("Qwen/Qwen3-32B", "L40S", quantization=name, max_model_len=8192, fixes=False)
    bf16 = kvplan.fit("Qwen/Qwen3-32B", "L40S", max_model_len=8192, fixes=False)
    assert p.weights_bytes == fp8.weights_bytes < 0.55 * bf16.weights_bytes
    assert any(f"--quantization {name} on an unquantized checkpoint" in n and scales in n for n in p.assumptions)


def test_an_online_fp8_shorthand_on_a_quantized_checkpoint_is_still_refused():
    with pytest.raises(InputError) as e:
        kvplan.fit("Qwen/Qwen2.5-72B-Instruct-AWQ", "H100", quantization="fp8_per_tensor", max_model_len=8192,
                   fixes=False)
    assert "awq" in str(e.value)
