"""`kvplan scaffold`'s launch flags against what each vLLM release's `vllm serve` accepts and does with them.

The facts are vLLM's, read in the release wheels (the file is named beside each): argparse choices, how a checkpoint's
own quantization config is taken, the --limit-mm-per-prompt format.
"""

from __future__ import annotations


import kvplan
from kvplan.deploy import render_files, spec_from_plan
from kvplan.render import source_label
from kvplan.resolve import _catalog_lookup
from kvplan.versions import serve_quantization


def _argv(plan) -> list[str]:
    return spec_from_plan(plan).serve_argv()


def _value(argv: list[str], flag: str):
    return argv[argv.index(flag) + 1] if flag in argv else None


def test_a_checkpoint_that_declares_its_quantization_in_config_json_gets_no_quantization_flag():
    """vLLM takes a config.json quantization_config's method when --quantization is not given (ModelConfig.
    _verify_quantization, every release). Writing the flag could only change that: for an NVFP4 ModelOpt checkpoint the
    scaffold wrote `--quantization modelopt`, the name of vLLM's FP8 ModelOpt method (the plan's method is
    modelopt_fp4); for an AWQ checkpoint `--quantization awq`, which makes 0.5-0.21 force the slow AWQ kernels
    instead of the awq_marlin ones they pick themselves (awq_marlin.py: "you specified quantization=awq explicitly,
    so forcing awq")."""
    config = _catalog_lookup("nvidia/Gemma-4-31B-IT-NVFP4")["config"]
    assert config["quantization_config"]["quant_method"] == "modelopt"  # declared in config.json
    nvfp4 = kvplan.fit("nvidia/Gemma-4-31B-IT-NVFP4", "B200", max_model_len=8192, vllm_version="0.33.0")
    assert nvfp4.fits and "--quantization" not in _argv(nvfp4)
    awq = kvplan.fit("Qwen/Qwen2.5-72B-Instruct-AWQ", "H100", max_model_len=8192, tensor_parallel_size=2,
                     vllm_version="0.12.0")
    assert awq.fits and "--quantization" not in _argv(awq)
    # the method given is written as given (vLLM's spelling): awq_marlin stays awq_marlin, not the family name awq
    given = kvplan.fit("Qwen/Qwen2.5-72B-Instruct-AWQ", "H100", max_model_len=8192, tensor_parallel_size=2,
                       vllm_version="0.12.0", quantization="awq_marlin")
    assert _value(_argv(given), "--quantization") == "awq_marlin"
    online = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192, quantization="FP8")
    assert _value(_argv(online), "--quantization") == "fp8"  # an unquantized checkpoint: the flag is what quantizes


def test_a_modelopt_checkpoint_declared_only_in_hf_quant_config_needs_the_flag_before_0_10_1():
    """vLLM reads hf_quant_config.json itself from 0.10.1 (transformers_utils/config.py get_config; not in the 0.10.0
    wheel): before, a ModelOpt export whose config.json has no quantization_config loads as unquantized unless
    --quantization names vLLM's ModelOpt method."""
    assert "quantization_config" not in _catalog_lookup("nvidia/Llama-3.1-70B-Instruct-FP8")["config"]
    for version, expected in (("0.9.2", "modelopt"), ("0.10.0", "modelopt"), ("0.10.1", None), ("0.33.0", None)):
        plan = kvplan.fit("nvidia/Llama-3.1-70B-Instruct-FP8", "H100", max_model_len=8192, tensor_parallel_size=4,
                          vllm_version=version)
        assert _value(_argv(plan), "--quantization") == expected, version


def test_a_given_quantization_is_written_in_vllms_spelling():
    # QUANTIZATION_METHODS (model_executor/layers/quantization/__init__.py) spells these with "-": argparse refuses
    # the "_" forms (its choices come from the QuantizationMethods Literal)
    assert serve_quantization("auto_round", None, False, "0.12.0") == "auto-round"
    assert serve_quantization("Compressed_Tensors", None, False, "0.12.0") == "compressed-tensors"
    assert serve_quantization(None, "modelopt_fp4", True, "0.9.0") == "modelopt_fp4"
    assert serve_quantization(None, "modelopt_fp4", False, "0.9.0") is None


def test_data_parallel_arithmetic_counts_every_gpu_the_top_line_counts():
    plan = kvplan.fit("Qwen/Qwen3-8B", "H100", max_model_len=8192, tensor_parallel_size=2, data_parallel_size=2)
    spec = spec_from_plan(plan)
    serve = render_files(spec)["serve.sh"]
    assert "on 4 x NVIDIA H100" in serve
    gpu_line = next(line for line in spec.arithmetic if line.startswith("GPU"))
    assert " x 4 (2 engines of TP 2 x PP 1):" in gpu_line
    assert all(line.endswith("per engine (x 2 engines)") for line in spec.arithmetic
               if line.startswith(("max concurrency", "KV cache tokens")))
    compose = render_files(spec)["docker-compose.yml"]
    assert "count: 4" in compose


def test_the_gpu_sources_label_has_no_brackets_inside_the_brackets_it_is_shown_in():
    assert source_label("CUDA total (deviceQuery / torch): shared/data/gpus.json") == "CUDA total, deviceQuery / torch"
    assert source_label("seen in a vLLM startup log: https://example.org/x") == "seen in a vLLM startup log"
