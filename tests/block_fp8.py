"""Block-FP8 checkpoints built from catalog configs, and planning them at a TP size, for the tests of vLLM's block-shape
checks (test_block_fp8_dense.py, test_block_fp8_compressed_tensors.py)."""
from __future__ import annotations

import copy

import pytest

import kvplan
from kvplan.errors import InputError
from kvplan.resolve import normalize, resolve_model


def fp8_block_checkpoint(catalog_id: str, skip: list[str]) -> kvplan.ModelSpec:
    """The catalog config of `catalog_id` with the block-FP8 quantization_config of an FP8 release (quant_method fp8,
    [128, 128] weight blocks, dynamic activations) leaving `skip` unconverted."""
    raw = copy.deepcopy(resolve_model(catalog_id).raw_config)
    raw["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
                                  "weight_block_size": [128, 128], "modules_to_not_convert": skip}
    return normalize(raw, model_id=f"test/{catalog_id.split('/')[-1]}-FP8", source="test")


def refusal(model, tp: int, gpu: str = "H100", **kw) -> InputError:
    """The InputError planning `model` at TP `tp` (8,192 tokens) raises."""
    with pytest.raises(InputError) as e:
        kvplan.fit(model, gpu, tensor_parallel_size=tp, max_model_len=8192, fixes=False, **kw)
    return e.value


def fits(model, tp: int, gpu: str = "H100", **kw) -> bool:
    return kvplan.fit(model, gpu, tensor_parallel_size=tp, max_model_len=8192, fixes=False, **kw).fits
