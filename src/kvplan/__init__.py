"""kvplan: predict what a vLLM deployment will do at startup, before you buy the GPU.

    >>> import kvplan
    >>> p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="L4", max_model_len=16384, vllm_version="0.11.0")
    >>> p.fits, p.kv_cache_tokens, round(p.max_concurrency, 2)
    (True, 28336, 1.73)

help(kvplan.fit) for its arguments, help(kvplan.Plan) for what a plan holds (bytes per rank).
"""

from kvplan.api import fit, replan
from kvplan.errors import InputError, KvplanError
from kvplan.plan import EngineArgs, Plan, plan
from kvplan.resolve import GPUSpec, ModelSpec, resolve_gpu, resolve_model

__version__ = "0.1.0"
__all__ = ["fit", "replan", "plan", "Plan", "EngineArgs", "ModelSpec", "GPUSpec", "resolve_model", "resolve_gpu",
           "KvplanError", "InputError", "__version__"]
