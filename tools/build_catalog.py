"""Build the embedded catalogs (src/kvplan/data/{gpus,models}.json) from the project's data.

    python tools/build_catalog.py [--shared ../shared]

Inputs: `shared/data/gpus.json` and `shared/data/models/*.json` (real config.json files).
Each catalog entry keeps its source. Model configs are also resolved here, once, with
transformers' AutoConfig (defaults and `layer_types` filled in), so that `kvplan fit`
on a catalog model never has to import transformers at run time.
"""

from __future__ import annotations

import argparse
import json
import logging
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "src" / "kvplan" / "data"

# Device totals as vLLM itself printed them (total_gpu_memory / "Free memory on device (f/T GiB)").
# vLLM's totals are what its arithmetic multiplies by gpu_memory_utilization, so they win over
# deviceQuery figures taken under other drivers (docs/gpu-facts.md, section 1).
VLLM_SEEN_TOTAL_GIB = {
    "tesla-t4": (14.56, "https://github.com/TickerTaka/TickerTaka-backend/blob/001c701a5805/reports/vllm-colab-t4-e2e-2026-06-24/09-vllm-server.log"),
    "rtx-3090": (23.58, "https://github.com/vllm-project/vllm/issues/10517"),
    "rtx-4090": (23.65, "https://github.com/ShanghaoLi0913/memory-aware_RLHF/blob/6942bb45efe6/vllm.log"),
    "rtx-pro-6000-blackwell": (94.97, "https://github.com/2215860382/VedioSifter/blob/45fd892d71ab/vllm_server.log"),
    "a100-40gb-sxm": (39.38, "https://github.com/baodangtrandev/RAG-/blob/5be041cccef4/benchmark_smoke_logs.txt"),
    "a100-40gb-pcie": (39.38, "https://github.com/baodangtrandev/RAG-/blob/5be041cccef4/benchmark_smoke_logs.txt"),
    "h100-sxm": (79.22, "https://github.com/vllm-project/vllm/pull/10511"),
    "l40s": (44.31, "kvplan issue 2: total seen in vLLM logs"),
}

# GPUs that vLLM logs show but the public GPU facts file lacks. Memory from a vLLM log;
# architecture figures from the vendor's published specifications.
EXTRA_GPUS = [
    {
        "id": "rtx-4080", "name": "NVIDIA GeForce RTX 4080", "aliases": ["RTX 4080", "GeForce RTX 4080", "4080", "RTX 4080 16GB"],
        "vendor": "NVIDIA", "memory_gb_marketing": 16, "compute_capability": "8.9",
        "hbm_bandwidth_tbps": 0.717, "bf16_tflops_dense": 97.5, "fp16_tflops_dense": 97.5, "fp8_tflops_dense": 195,
        "fp4_tflops_dense": None, "memory_total_bytes_reported": None, "nvidia_smi_total_mib": 16376,
        "interconnect": "PCIe 4.0 x16; no NVLink",
        "sources": ["https://github.com/mrpid12org/imageworks/blob/4fdc8eb92f03/vllm_llava_debug.log",
                    "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4080-family/"],
    },
]
EXTRA_GPUS += [
    {
        # The export variant of the A100 80GB SXM4: the same memory and compute, reduced NVLink.
        "id": "a800-80gb-sxm", "name": "NVIDIA A800-SXM4-80GB", "aliases": ["A800", "A800-80GB", "A800 80GB SXM4"],
        "vendor": "NVIDIA", "memory_gb_marketing": 80, "compute_capability": "8.0", "hbm_bandwidth_tbps": 2.039,
        "bf16_tflops_dense": 312, "fp16_tflops_dense": 312, "fp8_tflops_dense": None, "fp4_tflops_dense": None,
        "memory_total_bytes_reported": 85100068864, "interconnect": "NVLink 400 GB/s (export-limited)",
        "sources": ["https://www.nvidia.cn/data-center/a800/", "memory: same HBM2e part as the A100 80GB SXM4 (shared/data/gpus.json)"],
    },
    {
        # DGX Spark: integrated memory; vLLM >= 0.20 reads free memory from psutil but the total from CUDA.
        "id": "gb10", "name": "NVIDIA GB10", "aliases": ["GB10", "DGX Spark", "NVIDIA GB10 (DGX Spark)"],
        "vendor": "NVIDIA", "memory_gb_marketing": 128, "compute_capability": "12.1", "hbm_bandwidth_tbps": 0.273,
        "bf16_tflops_dense": None, "fp16_tflops_dense": None, "fp8_tflops_dense": None, "fp4_tflops_dense": None,
        "memory_total_bytes_reported": None, "interconnect": "ConnectX-7 200 Gb/s between two Sparks",
        "sources": ["https://www.nvidia.com/en-us/products/workstations/dgx-spark/"],
    },
]
# Same memory parts as a GPU whose vLLM-seen total is known: the total is carried over from that GPU.
SAME_MEMORY_AS = {"l40": "l40s", "h800-sxm": "h100-sxm"}
EXTRA_GPUS += [
    {
        "id": "l40", "name": "NVIDIA L40", "aliases": ["L40"], "vendor": "NVIDIA", "memory_gb_marketing": 48,
        "compute_capability": "8.9", "hbm_bandwidth_tbps": 0.864, "bf16_tflops_dense": 181, "fp16_tflops_dense": 181,
        "fp8_tflops_dense": 362, "fp4_tflops_dense": None, "memory_total_bytes_reported": None,
        "interconnect": "PCIe 4.0 x16; no NVLink",
        "sources": ["https://www.nvidia.com/en-us/data-center/l40/", "memory: the same 48 GB GDDR6 (ECC) configuration as the L40S"],
    },
    {
        "id": "h800-sxm", "name": "NVIDIA H800", "aliases": ["H800", "H800 SXM", "NVIDIA H800 80GB HBM3"], "vendor": "NVIDIA",
        "memory_gb_marketing": 80, "compute_capability": "9.0", "hbm_bandwidth_tbps": 3.35, "bf16_tflops_dense": 989,
        "fp16_tflops_dense": 989, "fp8_tflops_dense": 1979, "fp4_tflops_dense": None, "memory_total_bytes_reported": None,
        "interconnect": "NVLink 400 GB/s (export-limited)",
        "sources": ["https://www.nvidia.cn/data-center/h800/", "memory: the same 80 GB HBM3 part as the H100 SXM5"],
    },
]

# Popular vLLM cards the public GPU facts file lacks. Each total is what CUDA / torch / vLLM reported for that card
# (`memory_source` says which and where); ids, names and aliases follow how NVML and users spell the card. Where the
# catalog has no entry for a smaller sibling (RTX 2080, 4060 Ti 8GB, 5060 Ti 8GB, 4070 Ti, Quadro RTX 4000), "Ti" and
# "Ada" are written without a space ("2080Ti"): kvplan's resolver keys ignore spaces, so "RTX 2080 Ti" and NVML's
# "NVIDIA GeForce RTX 2080 Ti" still match exactly, but its token-subset fallback can no longer hand "RTX 2080" or
# NVML's "NVIDIA GeForce RTX 4060 Ti" (the 8 GB card) the bigger card's memory. Sizes stay out of the Ti aliases:
# "RTX 3090 Ti 24GB" would capture "RTX 3090 24GB" the same way. Bandwidth, where given, is the deviceQuery memory
# clock x 2 transfers x bus width (GDDR) from the cited capture; dense tensor TFLOPS are None (no vendor figure retrieved).
CUDA_GPUS = "https://developer.nvidia.com/cuda-gpus"
_FOUND = "public GitHub file found by exact-string search (the index returns no repository/path); verbatim: "
_NV_DEFAULTS = {"vendor": "NVIDIA", "bf16_tflops_dense": None, "fp16_tflops_dense": None, "fp8_tflops_dense": None,
                "fp4_tflops_dense": None, "memory_total_bytes_reported": None, "interconnect": None}
MIB = 1024 ** 2
EXTRA_GPUS += [
    {
        **_NV_DEFAULTS, "id": "rtx-3060", "name": "NVIDIA GeForce RTX 3060",
        "aliases": ["RTX 3060", "GeForce RTX 3060", "3060", "RTX 3060 12GB"],
        "memory_gb_marketing": 12, "compute_capability": "8.6", "hbm_bandwidth_tbps": 0.36,
        "sources": ["https://github.com/vllm-project/vllm/issues/27934 (vLLM: 'Free memory on device (6.44/11.63 GiB)'; "
                    "'RTX 3060 12GB (Compute 8.6)')",
                    _FOUND + "deviceQuery 'NVIDIA GeForce RTX 3060' ... 'Memory Clock rate: 7501 Mhz' 'Memory Bus Width: "
                    "192-bit' (bandwidth 7501 MHz x 2 x 24 B = 360 GB/s)"],
    },
    {
        **_NV_DEFAULTS, "id": "rtx-3080", "name": "NVIDIA GeForce RTX 3080",
        "aliases": ["RTX 3080", "GeForce RTX 3080", "3080", "RTX 3080 10GB"],
        "memory_gb_marketing": 10, "compute_capability": "8.6", "hbm_bandwidth_tbps": 0.76,
        "memory_total_bytes_reported": 10472390656,
        "memory_source": _FOUND + "deviceQuery (CUDA driver 12.0 / runtime 11.8) 'NVIDIA GeForce RTX 3080' 'CUDA Capability "
                         "8.6' 'Total amount of global memory: 9987 MBytes (10472390656 bytes)' 'Memory Clock rate: 9501 Mhz' "
                         "'Memory Bus Width: 320-bit'; nvidia-smi on the same host: FB Total 10240 MiB",
        "sources": ["deviceQuery capture (see total_source); bandwidth 9501 MHz x 2 x 40 B = 760 GB/s"],
        # The 12 GB RTX 3080 has the same NVML name; no public total for it was found, so "RTX 3080 12GB" resolves here
        # (the smaller card: a plan that fits 10 GB fits 12 GB).
    },
    {
        **_NV_DEFAULTS, "id": "rtx-3080-ti", "name": "NVIDIA GeForce RTX 3080 Ti",
        "aliases": ["RTX 3080 Ti", "GeForce RTX 3080 Ti", "3080 Ti", "3080Ti"],
        "memory_gb_marketing": 12, "compute_capability": "8.6", "hbm_bandwidth_tbps": 0.912,
        "memory_total_bytes_reported": 12630491136,
        "memory_source": _FOUND + "deviceQuery (CUDA 11.4) 'NVIDIA GeForce RTX 3080 Ti' 'CUDA Capability 8.6' 'Total amount of "
                         "global memory: 12045 MBytes (12630491136 bytes)' 'Memory Clock rate: 9501 Mhz' 'Memory Bus Width: 384-bit'",
        "sources": ["deviceQuery capture (see total_source); bandwidth 9501 MHz x 2 x 48 B = 912 GB/s"],
    },
    {
        **_NV_DEFAULTS, "id": "rtx-4060ti-16gb", "name": "NVIDIA GeForce RTX 4060Ti 16GB",
        "aliases": ["RTX 4060Ti 16GB", "GeForce RTX 4060Ti 16GB", "4060Ti 16GB"],
        "memory_gb_marketing": 16, "compute_capability": "8.9", "hbm_bandwidth_tbps": 0.288,
        "memory_total_bytes_reported": 16857038848,
        "memory_source": "deviceQuery (CUDA 12.4), 2 x 'NVIDIA GeForce RTX 4060 Ti' 'Total amount of global memory: 16076 MBytes "
                         "(16857038848 bytes)': https://github.com/thamada/nvidia-smi/blob/8ad4eed6fa5bdaf0c6f8503f8be09dfcf56148cd/"
                         "package/RTX4060Ti_deviceQuery.py",
        "interconnect": "PCIe; deviceQuery reports no peer access between two 4060 Ti",
        "sources": ["same deviceQuery: CUDA Capability 8.9, 'Memory Clock rate: 9001 Mhz', 'Memory Bus Width: 128-bit' "
                    "(9001 MHz x 2 x 16 B = 288 GB/s)"],
        # NVML names the 8 GB and 16 GB cards alike ("NVIDIA GeForce RTX 4060 Ti"): a bare "RTX 4060 Ti" stays unknown.
    },
    {
        **_NV_DEFAULTS, "id": "rtx-4070ti-super", "name": "NVIDIA GeForce RTX 4070Ti SUPER",
        "aliases": ["RTX 4070Ti SUPER", "GeForce RTX 4070Ti SUPER", "4070Ti SUPER"],
        "memory_gb_marketing": 16, "compute_capability": "8.9", "hbm_bandwidth_tbps": None,
        "memory_total_bytes_reported": 15974 * MIB,
        "memory_source": _FOUND + "'NVIDIA GeForce RTX 4070 Ti SUPER, 16376 MiB, 560.35.03' then torch "
                         "\"_CudaDeviceProperties(name='NVIDIA GeForce RTX 4070 Ti SUPER', major=8, minor=9, total_memory=15974MB\" "
                         "(another host: total_memory=15934MB)",
        "sources": ["torch capture (see total_source)"],
    },
    {
        **_NV_DEFAULTS, "id": "rtx-5060ti-16gb", "name": "NVIDIA GeForce RTX 5060Ti 16GB",
        "aliases": ["RTX 5060Ti 16GB", "GeForce RTX 5060Ti 16GB", "5060Ti 16GB"],
        "memory_gb_marketing": 16, "compute_capability": "12.0", "hbm_bandwidth_tbps": 0.448,
        "memory_total_bytes_reported": 16617897984,
        "memory_source": "CUDA device query 'NVIDIA GeForce RTX 5060 Ti' 'Compute Capability: 12.0' 'Global Memory: 16617897984 bytes': "
                         "https://github.com/Jumperkables/cuda-benchmarking/blob/76861cac2517f94d10bdf106589021991464bbda/"
                         "00_deviceQuery/README.md",
        "sources": ["https://github.com/Andyyyy64/whichllm/pull/33 (RTX 5060 Ti: 128-bit x 28 Gbps GDDR7 = 448 GB/s)"],
    },
    {
        **_NV_DEFAULTS, "id": "rtx-5080", "name": "NVIDIA GeForce RTX 5080",
        "aliases": ["RTX 5080", "GeForce RTX 5080", "5080", "RTX 5080 16GB"],
        "memory_gb_marketing": 16, "compute_capability": "12.0", "hbm_bandwidth_tbps": None,
        "sources": ["https://github.com/vllm-project/vllm/issues/14452 (8 x RTX 5080 under vLLM: torch OOM 'GPU 0 has a total "
                    "capacity of 15.48 GiB')",
                    _FOUND + "'Device 0: \"NVIDIA GeForce RTX 5080\" with Compute 12.0 capability'"],
    },
    {
        **_NV_DEFAULTS, "id": "rtx-2080ti", "name": "NVIDIA GeForce RTX 2080Ti",
        "aliases": ["RTX 2080Ti", "GeForce RTX 2080Ti", "2080Ti"],
        "memory_gb_marketing": 11, "compute_capability": "7.5", "hbm_bandwidth_tbps": 0.616,
        "sources": ["https://github.com/vllm-project/vllm/issues/19445 (vLLM v0.13.0 on RTX 2080 Ti: torch OOM 'GPU 0 has a "
                    "total capacity of 10.57 GiB')",
                    _FOUND + "RTX 2080 Ti device table 'CUDA Capability 7.5', 'Memory Clock rate|7000 Mhz', 'Memory Bus Width|"
                    "352-bit (44 bytes)' (7000 MHz x 2 x 44 B = 616 GB/s)"],
        # Turing (SM 7.5): no BF16; vLLM runs it in FP16. "RTX 2080" (8 GB) is not matched by this entry.
    },
    {
        **_NV_DEFAULTS, "id": "rtx-a5000", "name": "NVIDIA RTX A5000", "aliases": ["RTX A5000", "A5000"],
        "memory_gb_marketing": 24, "compute_capability": "8.6", "hbm_bandwidth_tbps": None,
        "memory_total_bytes_reported": 24114 * MIB,
        "memory_source": _FOUND + "torch \"_CudaDeviceProperties(name='NVIDIA RTX A5000', major=8, minor=6, total_memory=24114MB\" "
                         "(another host: total_memory=24138MB; the smaller is kept)",
        "sources": ["torch capture (see total_source)"],
    },
    {
        **_NV_DEFAULTS, "id": "rtx-4000ada", "name": "NVIDIA RTX 4000Ada Generation",
        "aliases": ["RTX 4000Ada", "RTX 4000Ada Generation", "4000Ada"],
        "memory_gb_marketing": 20, "compute_capability": "8.9", "hbm_bandwidth_tbps": 0.36,
        "memory_total_bytes_reported": 21125267456,
        "memory_source": "deviceQuery (CUDA 12.4) 'NVIDIA RTX 4000 Ada Generation' 'Total amount of global memory: 20147 MBytes "
                         "(21125267456 bytes)': https://github.com/thamada/nvidia-smi/blob/03fbe6e68c0bb4c28b72d5da786a9712a33cf408/"
                         "nvsim/RTX4000Ada_deviceQuery.py",
        "sources": ["same deviceQuery: CUDA Capability 8.9, 'Memory Clock rate: 9001 Mhz', 'Memory Bus Width: 160-bit' "
                    "(9001 MHz x 2 x 20 B = 360 GB/s)",
                    "https://devopscube.com/deploying-llama-with-docker-and-vllm/ (nvidia-smi: RTX 4000 Ada, 20,475 MiB)"],
    },
    {
        **_NV_DEFAULTS, "id": "rtx-6000-ada", "name": "NVIDIA RTX 6000 Ada Generation",
        "aliases": ["RTX 6000 Ada", "RTX 6000 Ada Generation", "6000 Ada"],
        "memory_gb_marketing": 48, "compute_capability": "8.9", "hbm_bandwidth_tbps": 0.96,
        "memory_total_bytes_reported": 51002867712,
        "memory_source": "deviceQuery (CUDA 12.4), 8 x 'NVIDIA RTX 6000 Ada Generation' 'Total amount of global memory: 48640 "
                         "MBytes (51002867712 bytes)', ECC disabled: https://github.com/thamada/nvidia-smi/blob/"
                         "b09ef139265ffc7e3c78006346981de8e4d70499/gls/RTX6000Ada_x8_deviceQuery.py",
        "sources": ["same deviceQuery: CUDA Capability 8.9, 'Memory Clock rate: 10001 Mhz', 'Memory Bus Width: 384-bit' "
                    "(10001 MHz x 2 x 48 B = 960 GB/s)"],
        # With ECC enabled the usable total is smaller; this is the ECC-off figure.
    },
    {
        **_NV_DEFAULTS, "id": "l20", "name": "NVIDIA L20", "aliases": ["L20"],
        "memory_gb_marketing": 48, "compute_capability": "8.9", "hbm_bandwidth_tbps": None, "nvidia_smi_total_mib": 46068,
        "memory_source": "https://github.com/vllm-project/vllm/issues/14011 (nvidia-smi, driver 550.54.15: "
                         "'NVIDIA L20 ... 45040MiB /  46068MiB')",
        "sources": [CUDA_GPUS + " (compute capability)"],
    },
    {
        "id": "mi210", "name": "AMD Instinct MI210", "aliases": ["MI210", "Instinct MI210"], "vendor": "AMD",
        "memory_gb_marketing": 64, "compute_capability": None, "hbm_bandwidth_tbps": None,
        "bf16_tflops_dense": None, "fp16_tflops_dense": None, "fp8_tflops_dense": None, "fp4_tflops_dense": None,
        "memory_total_bytes_reported": 67092480 * 1024, "interconnect": None,
        "memory_source": "rocminfo on an MI210 (gfx90a) host, GPU agent pool 'Segment: GLOBAL ... Size: 67092480(0x3ffc000) KB': "
                         "https://github.com/ROCm/legacy-rocm-build/issues/3246 (same figure as torch's 65520 MiB on an MI250X GCD)",
        "sources": ["https://github.com/ROCm/legacy-rocm-build/issues/3460 (MI210 rocminfo: same 67092480 KB pool, gfx90a)"],
    },
]

# GB10's total solved from four vLLM 0.25.1 startups' "CUDA graph memory profiling is enabled ... --gpu-memory-utilization=u
# is equivalent to ... =e" lines: estimate = (u - e) x total gives 121.1, 122.4, 122.2 and 121.3 GiB (mean 121.7;
# log_excerpts.jsonl, https://github.com/eugr/spark-vllm-docker issues).
EXTRA_TOTALS = {"gb10": (121.7, "solved from four vLLM 0.25.1 DGX Spark logs (CUDA-graph utilization-equivalence lines)"),
                "rtx-4080": (15.99, "https://github.com/mrpid12org/imageworks/blob/4fdc8eb92f03/vllm_llava_debug.log"),
                "rtx-3060": (11.63, "https://github.com/vllm-project/vllm/issues/27934 ('Free memory on device (6.44/11.63 GiB)')"),
                # torch's "total capacity" in an OOM raised inside a vLLM worker: the same cudaMemGetInfo total vLLM uses.
                "rtx-5080": (15.48, "https://github.com/vllm-project/vllm/issues/14452 (torch OOM in a vLLM worker: "
                                    "'GPU 0 has a total capacity of 15.48 GiB')"),
                "rtx-2080ti": (10.57, "https://github.com/vllm-project/vllm/issues/19445 (torch OOM under vLLM v0.13.0: "
                                      "'GPU 0 has a total capacity of 10.57 GiB')")}

# Tensor-core throughput the public GPU facts file lacks (docs/gpu-facts.md: "TFLOPS not retrieved"), from a public
# spec table; it agrees with NVIDIA's own headline for the card (4,000 AI TOPS = FP4 sparse = 8 x the BF16 dense rate).
EXTRA_TFLOPS = {
    "rtx-pro-6000-blackwell": ({"bf16_tflops_dense": 503.8, "fp16_tflops_dense": 503.8, "fp8_tflops_dense": 1007.6},
                               "https://hmc-tech.com/gpu/nvidia-rtx-pro-6000-blackwell-vs-amd-radeon-pro-duo-polaris "
                               "(BF16 503.8 TFLOPS Tensor, FP8 1.01 PFLOPS Tensor, dense)"),
}

GIB = 1024 ** 3

# Exact parameter counts stated by a public source (the seed documents read them from the Hub API).
KNOWN_PARAMS = {
    "Qwen/Qwen2.5-0.5B-Instruct": (494_032_768, "BF16", "seeds/anatomy-of-a-vllm-setup.txt (Hub API: 494,032,768 parameters)"),
    "Qwen/Qwen2.5-7B-Instruct": (7_615_616_512, "BF16", "seeds/anatomy-of-a-vllm-setup.txt (Hub API: 7,615,616,512 parameters)"),
}

# Repositories that ask users to accept a licence before download (Hub model pages).
GATED_PREFIXES = ("meta-llama/", "google/gemma", "mistralai/")


def build_gpus(shared: Path) -> list[dict]:
    rows = json.loads((shared / "data" / "gpus.json").read_text())
    out = []
    for g in rows + EXTRA_GPUS:
        gid = g["id"]
        flops, flops_source = EXTRA_TFLOPS.get(gid, ({}, None))
        g = {**g, **{k: v for k, v in flops.items() if g.get(k) is None}}
        seen = VLLM_SEEN_TOTAL_GIB.get(gid) or EXTRA_TOTALS.get(gid)
        if gid in SAME_MEMORY_AS:
            twin = SAME_MEMORY_AS[gid]
            seen = (VLLM_SEEN_TOTAL_GIB[twin][0], f"the vLLM-seen total of the {twin} (same memory part)")
        if seen:
            total_bytes, how, src = int(round(seen[0] * GIB)), "seen in a vLLM startup log", seen[1]
        elif g.get("memory_total_bytes_reported"):
            total_bytes = int(g["memory_total_bytes_reported"])
            how, src = "CUDA total (deviceQuery / torch)", g.get("memory_source") or "shared/data/gpus.json"
        elif g.get("nvidia_smi_total_mib"):
            # nvidia-smi counts driver-reserved memory: 0.25-0.75 GiB above CUDA's total (gpu-facts.md).
            total_bytes = int(g["nvidia_smi_total_mib"] * 1024 ** 2 - 0.6 * GIB)
            how, src = "estimate: nvidia-smi total minus 0.6 GiB driver reserve", g.get("memory_source") or "shared/data/gpus.json"
        else:
            total_bytes = None
            how, src = "unknown", "shared/data/gpus.json"
        out.append({
            "id": gid,
            "name": g["name"],
            "aliases": g.get("aliases") or [],
            "vendor": g.get("vendor", "NVIDIA"),
            "memory_gb_marketing": g.get("memory_gb_marketing"),
            "total_bytes": total_bytes,
            "total_source": f"{how}: {src}",
            "compute_capability": g.get("compute_capability"),
            "hbm_bandwidth_tbps": g.get("hbm_bandwidth_tbps"),
            "bf16_tflops": g.get("bf16_tflops_dense"),
            "fp16_tflops": g.get("fp16_tflops_dense"),
            "fp8_tflops": g.get("fp8_tflops_dense"),
            "fp4_tflops": g.get("fp4_tflops_dense"),
            "interconnect": g.get("interconnect"),
            "sources": (g.get("sources") or [])[:4] + ([{"fields": sorted(flops), "url": flops_source}] if flops_source else []),
        })
    return out


def resolve_with_autoconfig(config: dict) -> tuple[dict | None, str | None]:
    """AutoConfig's view of a config (defaults, layer_types), or None with the reason."""
    from transformers import AutoConfig

    model_type = config.get("model_type")
    if not model_type:
        return None, "config has no model_type"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cfg = AutoConfig.for_model(model_type, **{k: v for k, v in config.items() if k != "model_type"})
        return json.loads(cfg.to_json_string(use_diff=False)), None
    except Exception as exc:  # an unknown model_type, or a config AutoConfig rejects
        return None, f"{type(exc).__name__}: {str(exc)[:120]}"


def build_models(shared: Path) -> dict[str, dict]:
    import transformers

    logging.disable(logging.WARNING)
    models: dict[str, dict] = {}
    folder = shared / "data" / "models"
    for path in sorted(folder.glob("*.json")):
        if path.name.endswith(".hf_quant_config.json"):
            continue
        model_id = path.stem.replace("--", "/", 1)
        config = json.loads(path.read_text())
        quant_path = folder / f"{path.stem}.hf_quant_config.json"
        resolved, why = resolve_with_autoconfig(config)
        entry = {
            "id": model_id,
            "source": f"https://huggingface.co/{model_id}/blob/main/config.json (copy: shared/data/models/{path.name})",
            "config": config,
            "resolved_config": resolved,
            "resolved_by": f"transformers {transformers.__version__} AutoConfig" if resolved else None,
            "resolve_note": why,
            "hf_quant_config": json.loads(quant_path.read_text()) if quant_path.exists() else None,
            "gated": model_id.startswith(GATED_PREFIXES),
            "weights": None,
        }
        if model_id in KNOWN_PARAMS:
            n, dtype, src = KNOWN_PARAMS[model_id]
            entry["weights"] = {"params_by_dtype": {dtype: n}, "source": src}
        models[model_id] = entry
    return models


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(REPO.parent / "shared"))
    args = ap.parse_args()
    shared = Path(args.shared)
    OUT.mkdir(parents=True, exist_ok=True)
    gpus = build_gpus(shared)
    (OUT / "gpus.json").write_text(json.dumps(gpus, indent=1) + "\n")
    models = build_models(shared)
    (OUT / "models.json").write_text(json.dumps(models, indent=None, separators=(",", ":")) + "\n")
    print(f"{len(gpus)} GPUs, {len(models)} models -> {OUT}")


if __name__ == "__main__":
    main()
