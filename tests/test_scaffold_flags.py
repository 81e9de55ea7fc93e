"""`kvplan scaffold`'s launch flags against what each vLLM release's `vllm serve` accepts and does with them.

The facts are vLLM's, read in the release wheels (the file is named beside each): argparse choices, how a checkpoint's
own quantization config is taken, the --limit-mm-per-prompt format.
"""

from __future__ import annotations

from kvplan.render import source_label


def test_the_gpu_sources_label_has_no_brackets_inside_the_brackets_it_is_shown_in():
    assert source_label("CUDA total (deviceQuery / torch): shared/data/gpus.json") == "CUDA total, deviceQuery / torch"
    assert source_label("seen in a vLLM startup log: https://example.org/x") == "seen in a vLLM startup log"
