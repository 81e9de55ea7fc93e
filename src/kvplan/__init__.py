"""kvplan: predict what a vLLM deployment will do at startup, before you buy the GPU.

    >>> import kvplan
    >>> p = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", gpu="L4", max_model_len=32768)
    >>> p.fits, p.kv_cache_tokens, p.max_concurrency
"""

from kvplan.api import fit, replan
from kvplan.errors import InputError, KvplanError
from kvplan.plan import EngineArgs, Plan, plan
from kvplan.resolve import GPUSpec, ModelSpec, resolve_gpu, resolve_model

__version__ = "0.1.0"
__all__ = ["fit", "replan", "plan", "Plan", "EngineArgs", "ModelSpec", "GPUSpec", "resolve_model", "resolve_gpu",
           "KvplanError", "InputError", "__version__"]
