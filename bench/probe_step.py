"""Time a Llama-3.1-8B-shaped decoder step on a real GPU with PyTorch and compare it with kvplan's step model.

    python bench/probe_step.py [--out FILE] [--tiny]

Needs PyTorch with CUDA (`--tiny` runs a small model on the CPU, to check the script). Random bf16 weights of the
model's shapes; each step is captured once as a CUDA graph and replayed, so what is timed is the GPU's work: the
GEMMs (cuBLAS, as vLLM's unquantized layers), attention over a contiguous KV cache (PyTorch's cuDNN or
FlashAttention-2 kernel, not vLLM's paged FlashAttention-3), unfused RMSNorm / SiLU / residual adds (vLLM fuses them),
the LM head and a greedy pick. No scheduler, no input preparation, no sampling over the vocabulary: the step model's
per-request term (`per_request_work`, which carries that CPU-side work) is reported apart and left out of the
comparison. Printed per (decode requests x context) and for one prefill chunk: measured ms, the step model's GPU
terms (weights, KV, FLOPs, kernel fixed costs) and their sum, and the ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics

LLAMA_31_8B = dict(hidden=4096, layers=32, heads=32, kv_heads=8, head_dim=128, intermediate=14336, vocab=128256)
TINY = dict(hidden=256, layers=2, heads=4, kv_heads=2, head_dim=64, intermediate=512, vocab=1000)


def build(shape: dict, device: str, dtype):
    import torch
    g = torch.Generator(device=device).manual_seed(0)

    def w(*dims):
        return (torch.randn(*dims, device=device, dtype=dtype, generator=g) * 0.02)

    h, q, kv, d, i = shape["hidden"], shape["heads"], shape["kv_heads"], shape["head_dim"], shape["intermediate"]
    layers = [dict(qkv=w(h, (q + 2 * kv) * d), o=w(q * d, h), gate_up=w(h, 2 * i), down=w(i, h),
                   n1=torch.ones(h, device=device, dtype=dtype), n2=torch.ones(h, device=device, dtype=dtype))
              for _ in range(shape["layers"])]
    return layers, w(h, shape["vocab"]), torch.ones(h, device=device, dtype=dtype)


def step_fn(shape: dict, layers, lm_head, norm, x, caches, context: int, prefill: bool):
    """One forward of `x` (tokens, hidden): decode (one token per request, `context` tokens of KV each) or one
    causal prefill chunk."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q_h, kv_h, d = shape["heads"], shape["kv_heads"], shape["head_dim"]
    eps = 1e-5

    def run():
        h = x
        for layer, (k_cache, v_cache) in zip(layers, caches):
            a = F.rms_norm(h, (h.shape[-1],), layer["n1"], eps)
            qkv = a @ layer["qkv"]
            q, k, v = qkv.split([q_h * d, kv_h * d, kv_h * d], dim=-1)
            if prefill:  # one sequence: (1, heads, tokens, d)
                q4 = q.view(1, -1, q_h, d).transpose(1, 2)
                k4 = k.view(1, -1, kv_h, d).transpose(1, 2)
                v4 = v.view(1, -1, kv_h, d).transpose(1, 2)
                k_cache[:, :, : k4.shape[2]].copy_(k4)
                v_cache[:, :, : v4.shape[2]].copy_(v4)
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
                    o = F.scaled_dot_product_attention(q4, k4, v4, is_causal=True, enable_gqa=True)
                o = o.transpose(1, 2).reshape(-1, q_h * d)
            else:  # requests: (B, heads, 1, d) against (B, kv_heads, context, d)
                b = q.shape[0]
                k_cache[:, :, context - 1].copy_(k.view(b, kv_h, d))
                v_cache[:, :, context - 1].copy_(v.view(b, kv_h, d))
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
                    o = F.scaled_dot_product_attention(q.view(b, q_h, 1, d), k_cache, v_cache, enable_gqa=True)
                o = o.reshape(b, q_h * d)
            h = h + o @ layer["o"]
            a = F.rms_norm(h, (h.shape[-1],), layer["n2"], eps)
            gate, up = (a @ layer["gate_up"]).chunk(2, dim=-1)
            h = h + (F.silu(gate) * up) @ layer["down"]
        last = h[-1:] if prefill else h
        return (F.rms_norm(last, (last.shape[-1],), norm, eps) @ lm_head).argmax(dim=-1)

    return run


def time_ms(fn, device: str, reps: int = 20) -> float:
    import torch
    if device == "cpu":
        import time
        fn()
        t = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            t.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(t)
    from probe_gpu import _timed_ms  # bench/ is on the path when this script runs

    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            fn()
        replay = graph.replay
    except Exception as exc:  # a kernel that cannot be captured: time it eagerly, and say so
        print(json.dumps({"cuda_graph": f"not captured ({type(exc).__name__}: {str(exc)[:120]}); eager timing"}))
        torch.cuda.synchronize()
        replay = fn
    return _timed_ms(replay, reps=reps, warmup=0)


def main() -> None:
    import torch

    import kvplan
    from kvplan.simulate import StepModel

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    parser.add_argument("--tiny", action="store_true")
    args = parser.parse_args()
    device = "cpu" if args.tiny else "cuda"
    dtype = torch.float32 if args.tiny else torch.bfloat16
    shape = TINY if args.tiny else LLAMA_31_8B
    grid = [(1, 64), (4, 128)] if args.tiny else [(1, 1024), (1, 4096), (8, 1024), (8, 4096), (32, 1024), (32, 4096),
                                                   (128, 1024), (128, 4096), (256, 1024), (256, 2048)]
    prefill_tokens = 64 if args.tiny else 2048
    gpu = torch.cuda.get_device_name(0) if device == "cuda" else "cpu"
    plan = kvplan.fit("meta-llama/Llama-3.1-8B-Instruct", "H200" if device == "cpu" else gpu, detect_gpu=False,
                      fixes=False, max_model_len=8192)
    sm = StepModel.from_plan(plan)
    layers, lm_head, norm = build(shape, device, dtype)
    rows = []
    with torch.inference_mode():
        for batch, context in grid + [(0, prefill_tokens)]:
            prefill = batch == 0
            b, c = (1, context) if prefill else (batch, context)
            caches = [(torch.zeros(b, shape["kv_heads"], c, shape["head_dim"], device=device, dtype=dtype),
                       torch.zeros(b, shape["kv_heads"], c, shape["head_dim"], device=device, dtype=dtype))
                      for _ in range(shape["layers"])]
            x = torch.randn(context if prefill else batch, shape["hidden"], device=device, dtype=dtype)
            ms = time_ms(step_fn(shape, layers, lm_head, norm, x, caches, context, prefill), device)
            terms = (sm.explain_step(0, 0, [(context, 0)]) if prefill else sm.explain_step(batch, batch * context))["terms_ms"]
            gpu_terms = {k: v for k, v in terms.items() if k != "per_request_work"}
            rows.append({"step": "prefill" if prefill else "decode", "requests": 1 if prefill else batch,
                         "tokens": context if prefill else batch, "context": 0 if prefill else context,
                         "measured_ms": ms, "model_gpu_ms": sum(gpu_terms.values()), "model_terms_ms": terms,
                         "ratio_model_over_measured": sum(gpu_terms.values()) / ms})
            print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in rows[-1].items()
                              if k != "model_terms_ms"}), flush=True)
            del caches, x
            if device == "cuda":
                torch.cuda.empty_cache()
    report = {"gpu": gpu, "torch": torch.__version__, "model_shape": shape, "rows": rows}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
