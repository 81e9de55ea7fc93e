"""The cold-start warning's advice where the plan already claims all of the GPU: vLLM 0.34.0's extensible KV cache
defaults gpu_memory_utilization to 1.0, so 'a higher --gpu-memory-utilization' names no value a user can give."""
import kvplan
from kvplan.plan import ColdStartWarning


def _warning(**flags):
    p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "L4", max_model_len=32768, vllm_version="0.34.0", **flags)
    return p, next(w for w in p.warnings if isinstance(w, ColdStartWarning))


def test_at_utilization_1_the_advice_is_not_a_higher_utilization():
    p, w = _warning()
    assert p.fits and p.args.gpu_memory_utilization == 1.0
    assert "very first start may be refused" in w
    assert "a higher --gpu-memory-utilization" not in w
    assert "gpu_memory_utilization is already 1.0" in w and "a shorter --max-model-len" in w


def test_below_1_a_higher_utilization_is_still_the_advice():
    _, w = _warning(gpu_memory_utilization=0.98)
    assert "leave that much more room (a higher --gpu-memory-utilization)" in w
