"""Measure, on a real NVIDIA GPU, the facts kvplan's plan and step model take from elsewhere, and print them as JSON.

    python bench/probe_gpu.py [--out FILE]

Needs PyTorch with CUDA and nvidia-ml-py; neither the tests nor CI run it (they have no GPU). What it reads:

- totals: NVML's total and reserved memory beside CUDA's (`torch.cuda.mem_get_info`, what vLLM multiplies by
  gpu_memory_utilization), and the GPU kvplan's `resolve.detect_gpu` makes of them, with its catalog total;
- non-torch memory: what a fresh process holds on the GPU outside torch's allocator after CUDA's context, a cuBLAS
  GEMM, and a world-size-1 NCCL all-reduce -- the parts of vLLM's "non-torch memory" a single-GPU engine has;
- attention kernels through `torch.nn.functional.scaled_dot_product_attention` (PyTorch's own kernels, not vLLM's
  paged ones, so a bound on what the step model's attention terms may assume, not a fit for them): prefill (causal,
  Llama-3.1-8B's 32 query / 8 KV heads of 128) as achieved / spec bf16 FLOPS, decode (one query token per request) as
  achieved / spec HBM bandwidth over the KV bytes read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import textwrap

GIB = 1024 ** 3


def _timed_ms(fn, reps: int = 20, warmup: int = 5) -> float:
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def totals() -> dict:
    import pynvml
    import torch

    from kvplan.resolve import detect_gpu

    pynvml.nvmlInit()
    try:
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
        name = pynvml.nvmlDeviceGetName(h)
        mem = pynvml.nvmlDeviceGetMemoryInfo(h)
        try:
            reserved = int(pynvml.nvmlDeviceGetMemoryInfo(h, version=pynvml.nvmlMemory_v2).reserved)
        except Exception as e:  # older drivers have no v2 struct
            reserved = f"unavailable: {e}"
        driver = pynvml.nvmlSystemGetDriverVersion()
    finally:
        pynvml.nvmlShutdown()
    free_cuda, total_cuda = torch.cuda.mem_get_info()
    spec = detect_gpu()
    return {
        "nvml_name": name.decode() if isinstance(name, bytes) else name,
        "driver": driver.decode() if isinstance(driver, bytes) else driver,
        "nvml_total_bytes": int(mem.total), "nvml_reserved_bytes": reserved,
        "cuda_total_bytes": int(total_cuda), "cuda_free_bytes_at_start": int(free_cuda),
        "torch": torch.__version__, "capability": list(torch.cuda.get_device_capability(0)),
        "kvplan_detected": None if spec is None else {"id": spec.id, "name": spec.name,
                                                      "total_bytes": spec.total_bytes,
                                                      "total_source": spec.total_source},
    }


_NON_TORCH = textwrap.dedent("""
    import json, os, torch, torch.distributed as dist
    out = {}
    def used():
        free, total = torch.cuda.mem_get_info()
        return total - free
    base = used()  # other processes' memory, before this one makes a context
    torch.cuda.init(); torch.zeros(1, device="cuda"); torch.cuda.synchronize()
    out["after_context_bytes"] = used() - base - torch.cuda.memory_reserved()
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16); (a @ a).sum().item()
    out["after_cublas_gemm_bytes"] = used() - base - torch.cuda.memory_reserved()
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29533")
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda:0"))
    t = torch.ones(1 << 20, device="cuda"); dist.all_reduce(t); torch.cuda.synchronize()
    out["after_nccl_allreduce_bytes"] = used() - base - torch.cuda.memory_reserved()
    dist.destroy_process_group()
    print(json.dumps(out))
""")


def non_torch_memory() -> dict:
    proc = subprocess.run([sys.executable, "-c", _NON_TORCH], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        return {"error": proc.stderr[-2000:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def attention(peak_bf16_flops: float, peak_bytes_per_s: float) -> dict:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    heads, kv_heads, dim = 32, 8, 128
    result: dict = {"prefill": [], "decode": []}
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    for name, backend in backends.items():
        for length in (1024, 2048, 4096, 8192):
            q = torch.randn(1, heads, length, dim, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(1, kv_heads, length, dim, device="cuda", dtype=torch.bfloat16)
            v = torch.randn_like(k)
            try:
                with sdpa_kernel(backend):
                    ms = _timed_ms(lambda q=q, k=k, v=v: F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                                                     enable_gqa=True))
            except Exception as e:
                result["prefill"].append({"backend": name, "tokens": length, "error": str(e)[:200]})
                continue
            flops = 4 * heads * dim * length * length / 2  # QK^T and PV, causal half
            result["prefill"].append({"backend": name, "tokens": length, "ms": ms,
                                      "eta_of_peak": flops / (ms / 1e3) / peak_bf16_flops})
        for batch in (1, 8, 32, 128):
            for context in (1024, 4096, 16384):
                q = torch.randn(batch, heads, 1, dim, device="cuda", dtype=torch.bfloat16)
                k = torch.randn(batch, kv_heads, context, dim, device="cuda", dtype=torch.bfloat16)
                v = torch.randn_like(k)
                try:
                    with sdpa_kernel(backend):
                        ms = _timed_ms(lambda q=q, k=k, v=v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True))
                except Exception as e:
                    result["decode"].append({"backend": name, "batch": batch, "context": context,
                                             "error": str(e)[:200]})
                    continue
                kv_bytes = 2 * batch * kv_heads * context * dim * 2
                result["decode"].append({"backend": name, "batch": batch, "context": context, "ms": ms,
                                         "eta_of_bandwidth": kv_bytes / (ms / 1e3) / peak_bytes_per_s})
                del q, k, v
            torch.cuda.empty_cache()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    report: dict = {"totals": totals(), "non_torch": non_torch_memory()}
    from kvplan.resolve import find_gpu
    spec = find_gpu(report["totals"]["nvml_name"])
    report["spec_used"] = {"id": spec.id, "bf16_tflops": spec.bf16_tflops, "hbm_bandwidth_tbps": spec.hbm_bandwidth_tbps}
    report["attention"] = attention(spec.bf16_tflops * 1e12, spec.hbm_bandwidth_tbps * 1e12)
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
