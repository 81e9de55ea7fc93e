"""`kvplan scaffold`'s launch flags against what each vLLM release's `vllm serve` accepts and does with them.

The facts are vLLM's, read in the release wheels (the file is named beside each): argparse choices, how a checkpoint's
own quantization config is taken, the --limit-mm-per-prompt format.
"""

from __future__ import annotations


import kvplan
from kvplan.deploy import render_files, spec_from_plan
from kvplan.render import source_label


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
