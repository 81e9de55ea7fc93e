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
    # rocminfo gives this card 47.98 GiB, but vLLM (torch on ROCm) sees 44.98 GiB on it
    "radeon-pro-w7900": (44.98, "https://github.com/AUGMXNT/llm-tracker.info-vault/blob/7902908d40da/_TOORG/vLLM%20on%20RDNA3.md "
                                "('Memory profiling results: ... total_gpu_memory=44.98GiB', vLLM 0.6.4.post2 on a W7900)"),
}

# GPUs that vLLM logs show but the public GPU facts file lacks. Memory from a vLLM log;
# architecture figures from the vendor's published specifications.
EXTRA_GPUS = [
    {
        "id": "rtx-4080", "name": "NVIDIA GeForce RTX 4080", "aliases": ["RTX 4080", "GeForce RTX 4080", "4080", "RTX 4080 16GB"],
        "vendor": "NVIDIA", "memory_gb_marketing": 16, "compute_capability": "8.9",
        "hbm_bandwidth_tbps": 0.717, "bf16_tflops_dense": 97.5, "fp16_tflops_dense": 97.5, "fp8_tflops_dense": 195,
        # CUDA's total on a native driver: torch's total_memory=16049MB (MiB), 327 MiB below nvidia-smi's 16376 as a
        # driver's reserve is (gpu-facts.md: RTX 4090 354 MiB); the 15.99 GiB the imageworks log prints is the WSL2 total
        # (that log: "Using 'pin_memory=False' as WSL is detected"; CUDA's total under WSL2 is nvidia-smi's, resolve.py)
        "fp4_tflops_dense": None, "memory_total_bytes_reported": 16049 * 1024 ** 2, "nvidia_smi_total_mib": 16376,
        "memory_source": ("torch: public GitHub file found by exact-string search (the index returns no repository/path; "
                          "index id 22567041692): \"_CudaDeviceProperties(name='NVIDIA GeForce RTX 4080', major=8, minor=9, total_memory=16049MB, "
                          "multi_processor_count=76)\" (platform not stated; "
                          "327 MiB below nvidia-smi's 16376 MiB, a native driver's reserve)"),
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
        **_NV_DEFAULTS, "id": "rtx-4000ada", "name": "NVIDIA RTX 4000 Ada Generation",
        "aliases": ["RTX 4000 Ada", "RTX 4000Ada", "RTX 4000Ada Generation", "4000Ada"],
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
        "memory_gb_marketing": 48, "compute_capability": "8.9", "hbm_bandwidth_tbps": 0.864, "nvidia_smi_total_mib": 46068,
        "memory_source": "https://github.com/vllm-project/vllm/issues/14011 (nvidia-smi, driver 550.54.15: "
                         "'NVIDIA L20 ... 45040MiB /  46068MiB')",
        # No NVIDIA datasheet for the L20 was retrieved; its tensor TFLOPS stay None.
        "sources": [CUDA_GPUS + " (compute capability)",
                    "bandwidth: https://technical.city/pl/video/L20 (third-party spec database, not NVIDIA's): 48 GB GDDR6 "
                    "at 2.25 GHz on a 384-bit interface, 864.0 GB/s (2250 MHz x 8 transfers x 48 B = 864 GB/s)"],
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

# More cards vLLM users run, sourced the same way (stop 11). A total "seen in a vLLM log" wins; else the CUDA / torch /
# rocminfo total of the cited capture; else nvidia-smi's total less the fitted driver reserve (an estimate, labelled so;
# reserve_fit below).
# Bandwidth is left None where no fetched source states it. Unified-memory parts (Jetson) report the system memory.
EXTRA_GPUS += [
    {
        **_NV_DEFAULTS, "id": 'a30', "name": 'NVIDIA A30',
        "aliases": ['A30', 'NVIDIA A30'],
        "memory_gb_marketing": 24, "compute_capability": '8.0', "hbm_bandwidth_tbps": 0.933,
        'memory_total_bytes_reported': 24164 * MIB,
        "memory_source": "torch: public GitHub file found by exact-string search (the index returns no repository/path): 'YOLO 🚀 v0.1-112-g1eb03c3 Python-3.10.12 torch-2.8.0+cu128 CUDA:0 (NVIDIA A30, 24164MiB)'",
        "sources": ['https://github.com/LHRLAB/ChatKBQA/issues/2 (A30, older torch/driver): "CUDA out of memory. Tried to allocate 2.00 MiB (GPU 0; 23.50 GiB total capacity; ..." -> 23.50 GiB', 'https://github.com/google/RB-Modulation/issues/5: "GPU 0 has a total capacty of 23.53 GiB ... only 24G in A30"', 'deviceQuery-derived table (index id 38597028088, no URL): "Device | NVIDIA A30 | CUDA Driver / Runtime Version | 12.5 / 12.1 | CUDA Capability Major/Minor | 8.0 | Total Global Memory | 24169 MB (25,343,295,488 bytes)" (CC 8.0)'],
    },
    {
        **_NV_DEFAULTS, "id": 'h800-pcie', "name": 'NVIDIA H800 PCIe',
        "aliases": ['H800 PCIe', 'NVIDIA H800 PCIe'],
        "memory_gb_marketing": 80, "compute_capability": '9.0', "hbm_bandwidth_tbps": None,
        'nvidia_smi_total_mib': 81559,
        "memory_source": "nvidia_smi_mib: public GitHub file found by exact-string search (the index returns no repository/path): '- GPU: NVIDIA H800 PCIe, 81,559 MiB, driver 580.82.07 ... - vLLM: 0.20.1 - PyTorch: 2.11.0+cu130'",
        "sources": ['also: \'"nvidia_smi": "NVIDIA H800 PCIe, 81559 MiB, 570.124.04", ... "device_0": "NVIDIA H800 PCIe", "capability_0": [ 9, 0 ]\' (index id 66468480194, no URL) -> CC 9.0', 'nvidia-smi 81559 MiB is the same as H100 PCIe; CUDA-level total not found (expect ~79.0-79.2 GiB like h100-pcie)'],
    },
    {
        **_NV_DEFAULTS, "id": 'v100s-pcie-32gb', "name": 'Tesla V100S-PCIE-32GB',
        "aliases": ['V100S', 'Tesla V100S-PCIE-32GB', 'NVIDIA Tesla V100S-PCIE-32GB'],
        "memory_gb_marketing": 32, "compute_capability": '7.0', "hbm_bandwidth_tbps": 1.134,
        'memory_total_bytes_reported': 32501 * MIB,
        "memory_source": "torch: public GitHub file found by exact-string search (the index returns no repository/path): '2023-10-06T15:23:14Z [job] Ultralytics YOLOv8.0.194 🚀 Python-3.8.18 torch-2.1.0+cu121 CUDA:0 (Tesla V100S-PCIE-32GB, 32501MiB)'",
        "sources": ["older torch: 'YOLOv5 🚀 v5.0-290-g62409ee torch 1.8.0 CUDA:0 (Tesla V100S-PCIE-32GB, 32510.5MB)' (index id 8808859597, no URL) = 31.75 GiB", "nvidia-smi: 'Tesla V100S-PCIE-32GB, 32768 MiB; driver 550.107.02' (index id 59844548622)", 'CC 7.0 / bandwidth: devinfo output \'======= Device 0: "Tesla V100S-PCIE-32GB" ======= CUDA Architecture: Volta, 7.0 ... Peak memory bandwidth (GB/s): 1134\' (index id 52872629004, no URL)'],
    },
    {
        **_NV_DEFAULTS, "id": 'h20-3e', "name": 'NVIDIA H20-3e',
        "aliases": ['H20-3e', 'NVIDIA H20-3e', 'H20 141GB'],
        "memory_gb_marketing": 141, "compute_capability": '9.0', "hbm_bandwidth_tbps": 4.8,
        'nvidia_smi_total_mib': 143771,
        "memory_source": "nvidia_smi_mib: public GitHub file found by exact-string search (the index returns no repository/path): 'NVIDIA H20-3e, 143771 MiB, 590.48.01'",
        "sources": ["same value in several files, e.g. '| GPU | 8 x NVIDIA H20-3e, 143771 MiB each | Driver | 580.95.05' (index id 60976242793)", "https://github.com/tile-ai/TileOPs/pull/1658: 'gpu: NVIDIA H20-3e / compute_capability: 9.0 / hbm: theoretical: 4800e9 # bytes/s, HBM3e 141GB stack (same silicon as H200)'", "nvidia-smi total equals H200's 143771 MiB; CUDA total not found (H200 catalog: 139.8 GiB)"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-5000-ada', "name": 'NVIDIA RTX 5000 Ada Generation',
        "aliases": ['RTX 5000 Ada', 'NVIDIA RTX 5000 Ada Generation'],
        "memory_gb_marketing": 32, "compute_capability": '8.9', "hbm_bandwidth_tbps": None,
        'nvidia_smi_total_mib': 32760,
        "memory_source": "nvidia_smi_mib: public GitHub file found by exact-string search (the index returns no repository/path): '- GPU: `NVIDIA RTX 5000 Ada Generation, 32760 MiB`.'",
        "sources": ["also 'GPU | 2 × NVIDIA RTX 5000 Ada Generation, 32760 MiB ciascuna' (index id 68519422180) and 'GPU 0 | NVIDIA RTX 5000 Ada Generation, 32 760 MiB' (index id 71164324276)", 'CUDA-level total not found'],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-a4000', "name": 'NVIDIA RTX A4000',
        "aliases": ['RTX A4000', 'NVIDIA RTX A4000'],
        "memory_gb_marketing": 16, "compute_capability": '8.6', "hbm_bandwidth_tbps": 0.448,
        'memory_total_bytes_reported': 16117 * MIB,
        "memory_source": "torch: public GitHub file found by exact-string search (the index returns no repository/path): 'Ultralytics YOLOv8.0.36 🚀 Python-3.8.10 torch-1.12.1+cu116 CUDA:0 (NVIDIA RTX A4000, 16117MiB)'",
        "sources": ["also 'YOLOR 🚀 v0.1-115-g072f76c torch 1.10.2+cu111 CUDA:0 (NVIDIA RTX A4000, 16117.3125MB)' (index id 31365933372)", "https://github.com/DengKaiCQ/VGGT-Long/issues/6 (RTX A4000, 2025, driver/OS unknown): 'GPU 0 has a total capacity of 15.61 GiB' -> lower than 16117 MiB (15.74 GiB); driver-dependent", "nvidia-smi: 'Hardware: one NVIDIA RTX A4000, 16,376 MiB, driver 580.173.02' (index id 65990426228)"],
    },
    {
        **_NV_DEFAULTS, "id": 'quadro-rtx-8000', "name": 'Quadro RTX 8000',
        "aliases": ['Quadro RTX 8000', 'RTX 8000', 'NVIDIA Quadro RTX 8000'],
        "memory_gb_marketing": 48, "compute_capability": '7.5', "hbm_bandwidth_tbps": 0.672,
        'memory_total_bytes_reported': int(47.46 * 1024 ** 3),
        "memory_source": "torch: https://github.com/Victarry/stable-dreambooth/issues/8: 'RuntimeError: CUDA out of memory. Tried to allocate 4.00 GiB (GPU 0; 47.46 GiB total capacity; 44.29 GiB already allocated; 862.56 MiB free; 45.46 GiB reserved in total by PyTorch)'",
        "sources": ["'Ultralytics YOLOv8.0.227 🚀 Python-3.9.18 torch-2.1.1+cu121 CUDA:0 (Quadro RTX 8000, 48593MiB)' (index id 3316311062, no URL) = 47.45 GiB", "newer stack: 'PyTorch 2.12 ... CUDA 13 ... CUDA:0 (Quadro RTX 8000, 48380MiB)' (index id 60313152358, no URL) = 47.25 GiB (driver-dependent)", 'https://squadfill.com/2018/08/14/nvidia-unveils-new-turing-architecture-and-teases-rtx-2080: "The \'big chip\' offering delivers 672GB/s of bandwidth" (RTX 8000/6000)'],
    },
    {
        **_NV_DEFAULTS, "id": 'titan-rtx', "name": 'NVIDIA TITAN RTX',
        "aliases": ['TITAN RTX', 'NVIDIA TITAN RTX'],
        "memory_gb_marketing": 24, "compute_capability": '7.5', "hbm_bandwidth_tbps": 0.672,
        'memory_total_bytes_reported': 24212 * MIB,
        "memory_source": "torch: public GitHub file found by exact-string search (the index returns no repository/path): 'YOLOv5 🚀 v7.0-63-gcdd804d Python-3.8.10 torch-1.13.1+cu117 CUDA:0 (NVIDIA TITAN RTX, 24212MiB)'",
        "sources": ["nvidia-smi: '0, NVIDIA TITAN RTX, 24576 MiB, 1 MiB, 24211 MiB' (index id 67067871126)", "https://github.com/lllyasviel/FramePack/issues/79 (Windows/WDDM, not representative): 'GPU 0 has a total capacity of 24.00 GiB'"],
    },
    {
        **_NV_DEFAULTS, "id": 'a2', "name": 'NVIDIA A2',
        "aliases": ['A2', 'NVIDIA A2', 'A2 PCIe'],
        "memory_gb_marketing": 16, "compute_capability": '8.6', "hbm_bandwidth_tbps": None,
        'nvidia_smi_total_mib': 15356,
        "memory_source": "nvidia_smi_mib: public GitHub file found by exact-string search (the index returns no repository/path): '| GPU | **NVIDIA A2, 15 356 MiB (~15 GB) VRAM**, compute 8.6 (Ampere) |'",
        "sources": ["'Physical GPU 0 A2, 15356 MiB, CC8.6' driver 550.163.01 (index id 70733150859)", 'CUDA-level total not found (expect below 15356 MiB, cf. T4 15360 MiB nvidia-smi -> 14.56 GiB CUDA)'],
    },
    {
        **_NV_DEFAULTS, "id": 'a16', "name": 'NVIDIA A16',
        "aliases": ['A16', 'NVIDIA A16'],
        "memory_gb_marketing": 16, "compute_capability": '8.6', "hbm_bandwidth_tbps": None,
        'nvidia_smi_total_mib': 15356,
        "memory_source": "nvidia_smi_mib: public GitHub file found by exact-string search (the index returns no repository/path): '- GPU: NVIDIA A16, 15,356 MiB, compute capability 8.6\\n- NVIDIA driver: 595.71.05'",
        "sources": ["vLLM TP=4 on A16: '3  NVIDIA A16 ... 14724MiB / 15356MiB' and 'CSV: NVIDIA A16, 15356 MiB' (index id 71051116011)", 'A16 board = 4 GPUs x 16 GB; each GPU is one CUDA device'],
    },
    {
        **_NV_DEFAULTS, "id": 'jetson-agx-orin-64gb', "name": 'NVIDIA Jetson AGX Orin 64GB',
        "aliases": ['Jetson AGX Orin 64GB', 'NVIDIA Jetson AGX Orin 64GB', 'NVIDIA Jetson AGX Orin'],
        "memory_gb_marketing": 64, "compute_capability": '8.7', "hbm_bandwidth_tbps": 0.2048,
        'memory_total_bytes_reported': 65893089280,
        "memory_source": 'deviceQuery: public GitHub file found by exact-string search (the index returns no repository/path): \'Device 0: "Orin"\\n  CUDA Driver Version / Runtime Version          12.6 / 12.6\\n  CUDA Capability Major/Minor version number:    8.7\\n  Total amount of global memory:                 62841 MBytes (65893089280 bytes)\\n  (016)\'',
        "sources": ['UNIFIED MEMORY: CUDA total = system LPDDR5 visible to Linux (shared with CPU/OS); usable for vLLM is lower', "another 64GB doc: 'Total amount of global memory: 62841 MBytes (65893269504 bytes)' (index id 61991427318)", "bandwidth 204.8 GB/s: spec table (index id 54714041744, no URL): '| 内存带宽 | 204.8 GB/s | 204.8 GB/s |' for AGX Orin 64GB/32GB"],
    },
    {
        **_NV_DEFAULTS, "id": 'jetson-thor', "name": 'NVIDIA Jetson AGX Thor',
        "aliases": ['NVIDIA Thor', 'Jetson Thor', 'Jetson AGX Thor', 'T5000'],
        "memory_gb_marketing": 128, "compute_capability": '11.0', "hbm_bandwidth_tbps": 0.273,
        'memory_total_bytes_reported': 131881680896,
        "memory_source": 'deviceQuery: public GitHub file found by exact-string search (the index returns no repository/path): \'Device 0: "NVIDIA Thor"\\n  CUDA Driver Version / Runtime Version          13.0 / 13.0\\n  CUDA Capability Major/Minor version number:    11.0\\n  Total amount of global memory:                 125772 MBytes (131881680896 byte\'',
        "sources": ['UNIFIED MEMORY (128 GB LPDDR5X shared with CPU/OS)', "vLLM container nvcr.io/nvidia/vllm:25.09-py3 deviceQuery: 'Total amount of global memory: 125772 MBytes (131881684992 bytes)' (index id 44448955983); CUDA 13.2 Noble: '125492 MBytes (131587801088 bytes)' (index id 65768411822)", "https://github.com/antirez/ds4/pull/788: 'NVIDIA Jetson AGX Thor T5000 developer kit - Blackwell, compute capability sm_110, 2560 CUDA cores / 96 tensor cores, 128 GB LPDDR5X at 273 GB/s'"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-pro-5000-blackwell', "name": 'NVIDIA RTX PRO 5000 Blackwell',
        "aliases": ['RTX PRO 5000', 'RTX PRO 5000 Blackwell', 'NVIDIA RTX PRO 5000 Blackwell'],
        "memory_gb_marketing": 48, "compute_capability": '12.0', "hbm_bandwidth_tbps": 1.344,
        'nvidia_smi_total_mib': 48935,
        "memory_source": "nvidia_smi_mib: public GitHub file found by exact-string search (the index returns no repository/path): 'NVIDIA RTX PRO 5000 Blackwell, 595.71.05, 48935 MiB'",
        "sources": ["likely CUDA-level (vLLM 0.30.0 / PyTorch 2.13.0 report, exact origin unstated): '| 사용 GPU | NVIDIA RTX PRO 5000 Blackwell, 47.23 GiB |' (index id 70919330036, no URL)", '48GB variant only; a 72GB variant exists (not found)', "https://www.purepc.pl/nvidia-rtx-pro-6000-rtx-pro-6000-max-q-rtx-pro-5000-rtx-pro-4500-oraz-rtx-pro-4000-profesjonalne-karty-graficzne-blackwell: 'RTX PRO 5000 Blackwell oferuje ponadto 48 GB pamięci GDDR7 ECC na 384-bitowej magistrali, co przekłada się na przepustowość 1344 GB/s'"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-3090-ti', "name": 'NVIDIA GeForce RTX 3090 Ti',
        "aliases": ['RTX 3090 Ti', 'GeForce RTX 3090 Ti', '3090 Ti', 'RTX 3090Ti'],
        "memory_gb_marketing": 24, "compute_capability": '8.6', "hbm_bandwidth_tbps": 1.008,
        'memory_total_bytes_reported': 24114 * MIB,
        "memory_source": 'torch: public GitHub file found by exact-string search (the index returns no repository/path): "_CudaDeviceProperties(name=\'NVIDIA GeForce RTX 3090 Ti\', major=8, minor=6,\\n  total_memory=24114MB, multi_processor_count=84, L2_cache_size=6MB)  [same doc: nvidia-smi \'NVIDIA GeForce RTX 3090 Ti, 24564 MiB, 590.44.01\'; t"',
        "sources": ["find_string index file id 53443089858 (public GitHub file; the index returns no repository/path): Linux Ultralytics 'torch-2.9.1+cu128 CUDA:0 (NVIDIA GeForce RTX 3090 Ti, 24110MiB)' (Ultralytics prints torch total_memory/2**20)", "find_string index file id 27282280321 (public GitHub file; the index returns no repository/path): older driver 'YOLOv5 ... torch-2.1.1+cu118 CUDA:0 (NVIDIA GeForce RTX 3090 Ti, 24214MiB)' (total drifts ~100 MiB down on newer drivers)", "CC 8.6: same torch line 'major=8, minor=6'"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-4090-d', "name": 'NVIDIA GeForce RTX 4090 D',
        "aliases": ['RTX 4090 D', 'GeForce RTX 4090 D', '4090 D', 'RTX 4090D', '4090D'],
        "memory_gb_marketing": 24, "compute_capability": '8.9', "hbm_bandwidth_tbps": 1.008,
        'memory_total_bytes_reported': 24111 * MIB,
        "memory_source": "torch: public GitHub file found by exact-string search (the index returns no repository/path): 'Ultralytics 8.3.204 🚀 Python-3.11.13 torch-2.8.0+cu128 CUDA:0 (NVIDIA GeForce RTX 4090 D, 24111MiB)  [Linux, /root/...; Ultralytics prints torch total_memory/2**20]'",
        "sources": ["find_string index file id 41065729945 (public GitHub file; the index returns no repository/path) and find_string index file id 38443167076 (public GitHub file; the index returns no repository/path): older torch/driver 'CUDA:0 (NVIDIA GeForce RTX 4090 D, 24210MiB)'", "find_string index file id 69612263523 (public GitHub file; the index returns no repository/path): '**GPUs** — 4 × NVIDIA GeForce RTX 4090 D, 24564 MiB each, compute capability\n8.9, driver `590.48.01`' (nvidia-smi total + CC)", "https://github.com/CYBIRD-D/How-to-Choose-your-LLM-Model-for-translation/blob/52379077acab0e1d450adb86345f9e705bb6cade/Nvidia_GPU_Specification.md : '| RTX 4090 D | 14592 | 24 | 1008 |'"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-4070-ti', "name": 'NVIDIA GeForce RTX 4070 Ti',
        "aliases": ['RTX 4070 Ti', 'GeForce RTX 4070 Ti', '4070 Ti', 'RTX 4070Ti', 'RTX 4070 Ti 12GB'],
        "memory_gb_marketing": 12, "compute_capability": '8.9', "hbm_bandwidth_tbps": 0.504,
        'memory_total_bytes_reported': 12007 * MIB,
        "memory_source": "torch: public GitHub file found by exact-string search (the index returns no repository/path): 'YOLOv5 🚀 2023-12-6 Python-3.9.18 torch-2.1.1+cu121 CUDA:0 (NVIDIA GeForce RTX 4070 Ti, 12007MiB)  [Linux, /home/linuxit/...; torch total_memory/2**20; 2023-era driver]'",
        "sources": ["find_string index file id 69734109907 (public GitHub file; the index returns no repository/path): '| GPU | NVIDIA GeForce RTX 4070 Ti, 12282 MiB, compute capability 8.9 (Ada) |' (nvidia-smi total + CC; vLLM 0.28.0 box)", "find_string index file id 28072692075 (public GitHub file; the index returns no repository/path): 'torch-2.6.0+cu126 CUDA:0 (NVIDIA GeForce RTX 4070 Ti, 12282MiB)' (likely Windows/WDDM where CUDA total == nvidia-smi)", 'caution: on the RTX 4070 (same 12282 MiB nvidia-smi) newer Linux drivers report ~11866-11903 MiB vs ~11994-12002 MiB on 2023 drivers, so 4070 Ti on a current driver is probably ~130 MiB below 12007'],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-4070', "name": 'NVIDIA GeForce RTX 4070',
        "aliases": ['RTX 4070', 'GeForce RTX 4070', '4070', 'RTX 4070 12GB'],
        "memory_gb_marketing": 12, "compute_capability": '8.9', "hbm_bandwidth_tbps": 0.504,
        'memory_total_bytes_reported': 11866 * MIB,
        "memory_source": "deviceQuery: public GitHub file found by exact-string search (the index returns no repository/path): 'ggml_cuda_init: found 1 CUDA devices (Total VRAM: 11866 MiB):\\n  Device 0: NVIDIA GeForce RTX 4070, compute capability 8.9, VMM: yes, VRAM: 11866 MiB\\nbuild: 8586 (64ac9ab66) with GNU 15.2.1 for Linux x86_64  [llama.cpp pr'",
        "sources": ["find_string index file id 52497678043 (public GitHub file; the index returns no repository/path): Linux llama.cpp 'Device 0: NVIDIA GeForce RTX 4070, compute capability 8.9, VMM: yes, VRAM: 11903 MiB'", "find_string index file id 60442349183 (public GitHub file; the index returns no repository/path): 'Device 0: NVIDIA GeForce RTX 4070, compute capability 8.9, VMM: yes, VRAM: 11875 MiB (11714 MiB free)'", "find_string index file id 5501058174 (public GitHub file; the index returns no repository/path): older Linux torch 'torch-1.13.0+cu117 CUDA:0 (NVIDIA GeForce RTX 4070, 11994MiB)'; find_string index file id 32106163389 (public GitHub file; the index returns no repository/path): 'torch-2.5.1+cu124 CUD"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-4070-super', "name": 'NVIDIA GeForce RTX 4070 SUPER',
        "aliases": ['RTX 4070 SUPER', 'GeForce RTX 4070 SUPER', '4070 SUPER', 'RTX 4070 Super', '4070 Super'],
        "memory_gb_marketing": 12, "compute_capability": '8.9', "hbm_bandwidth_tbps": 0.504,
        'nvidia_smi_total_mib': 12282,
        "memory_source": "nvidia_smi_mib: public GitHub file found by exact-string search (the index returns no repository/path): 'GPU: NVIDIA GeForce RTX 4070 SUPER, 12282 MiB, sm_89. Checked with\\nnvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv  [nvidia-smi total, NOT the CUDA total; Linux CUDA total not found]'",
        "sources": ["find_string index file id 66518564485 (public GitHub file; the index returns no repository/path): Windows (D:\\ paths) Ultralytics 'torch-2.5.1+cu121 CUDA:0 (NVIDIA GeForce RTX 4070 SUPER, 12282MiB)' - under WDDM the CUDA total equals nvidia-smi, so this does not give the Linux figure", 'estimate only (unsourced for this SKU): the RTX 4070 with the same 12282 MiB nvidia-smi total reports 11866-12002 MiB to CUDA on Linux', 'find_string index file id 69562124537 (public GitHub file; the index returns no repository/path): deviceQuery \'Device 0: "NVIDIA GeForce RTX 4070 SUPER" ... CUDA Capability Major/Minor version number: 8.9\''],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-5070-ti', "name": 'NVIDIA GeForce RTX 5070 Ti',
        "aliases": ['RTX 5070 Ti', 'GeForce RTX 5070 Ti', '5070 Ti', 'RTX 5070Ti', '5070Ti'],
        "memory_gb_marketing": 16, "compute_capability": '12.0', "hbm_bandwidth_tbps": 0.896,
        "sources": ["find_string index file id 53108913194 (public GitHub file; the index returns no repository/path): llama.cpp 'Device 0: NVIDIA GeForce RTX 5070 Ti, compute capability 12.0, VMM: yes, VRAM: 15842 MiB' (15842 MiB = 15.47 GiB; also gives CC 12.0)", "find_string index file id 59379340907 (public GitHub file; the index returns no repository/path): 'GPU: NVIDIA GeForce RTX 5070 Ti, compute capability 12.0, driver 610.57.04, 16,303 MiB physical and about 15,880 MiB usable process capacity'", "https://github.com/CYBIRD-D/How-to-Choose-your-LLM-Model-for-translation/blob/52379077acab0e1d450adb86345f9e705bb6cade/Nvidia_GPU_Specification.md : '| RTX 5070 Ti | 8960 | 16 | 896 |'"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-5070', "name": 'NVIDIA GeForce RTX 5070',
        "aliases": ['RTX 5070', 'GeForce RTX 5070', '5070', 'RTX 5070 12GB'],
        "memory_gb_marketing": 12, "compute_capability": '12.0', "hbm_bandwidth_tbps": 0.672,
        'nvidia_smi_total_mib': 12227,
        "memory_source": 'nvidia_smi_mib: public GitHub file found by exact-string search (the index returns no repository/path): "| GPU available | NVIDIA GeForce RTX 5070, 12227 MiB VRAM, compute capability 12.0 (Blackwell), driver 595.84 | detected: `nvidia-smi` |  [same doc: \'Ubuntu 24.04.4 LTS\'; nvidia-smi total, NOT the CUDA total]"',
        "sources": ["find_string index file id 57401258474 (public GitHub file; the index returns no repository/path): Windows llama.cpp b9101 'Device 0: NVIDIA GeForce RTX 5070, compute capability 12.0, VMM: yes, VRAM: 12226 MiB' (WDDM: CUDA total ~= nvidia-smi)", 'estimate only (unsourced): on the RTX 5070 Ti the Linux CUDA total is ~461 MiB below nvidia-smi (15842 vs 16303 MiB); no Linux CUDA/vLLM total for the 5070 was found', "https://github.com/CYBIRD-D/How-to-Choose-your-LLM-Model-for-translation/blob/52379077acab0e1d450adb86345f9e705bb6cade/Nvidia_GPU_Specification.md : '| RTX 5070 | 6144 | 12 | 672 |'"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-3070', "name": 'NVIDIA GeForce RTX 3070',
        "aliases": ['RTX 3070', 'GeForce RTX 3070', '3070', 'RTX 3070 8GB'],
        "memory_gb_marketing": 8, "compute_capability": '8.6', "hbm_bandwidth_tbps": 0.448,
        'memory_total_bytes_reported': 8197111808,
        "memory_source": 'deviceQuery: public GitHub file found by exact-string search (the index returns no repository/path): \'Device 0: "NVIDIA GeForce RTX 3070"\\n  CUDA Driver Version / Runtime Version          12.8 / 12.8\\n  CUDA Capability Major/Minor version number:    8.6\\n  Total amount of global memory:                 7817 MBytes (81971118\'',
        "sources": ["find_string index file id 65969143195 (public GitHub file; the index returns no repository/path): Linux Ultralytics 'torch-2.10.0+cu128 CUDA:0 (NVIDIA GeForce RTX 3070, 7842MiB)'", "find_string index file id 24853334455 (public GitHub file; the index returns no repository/path): older Linux deviceQuery (CUDA 11.6) 'Total amount of global memory: 7974 MBytes (8361213952 bytes)'; find_string index file id 54169976600 (public GitHub file; the index returns no repository/path): TF ", "https://github.com/MonitSharma/parallel_adventures cuda_kernels/Readme.md: 'Total amount of global memory: 8192 MBytes (8589410304 bytes)' (CUDA 12.7; full 8 GiB, typical of Windows/WSL, not Linux)"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-3060-ti', "name": 'NVIDIA GeForce RTX 3060 Ti',
        "aliases": ['RTX 3060 Ti', 'GeForce RTX 3060 Ti', '3060 Ti', 'RTX 3060Ti'],
        "memory_gb_marketing": 8, "compute_capability": '8.6', "hbm_bandwidth_tbps": 0.448,
        'memory_total_bytes_reported': 7833 * MIB,
        "memory_source": "torch: public GitHub file found by exact-string search (the index returns no repository/path): 'Ultralytics 8.4.48 🚀 Python-3.14.4 torch-2.11.0+cu130 CUDA:0 (NVIDIA GeForce RTX 3060 Ti, 7833MiB)  [torch total_memory/2**20]'",
        "sources": ['find_string index file id 34099184611 (public GitHub file; the index returns no repository/path): Linux deviceQuery (driver CUDA 12.2) \'Device 0: "NVIDIA GeForce RTX 3060 Ti" ... CUDA Capability Major/Minor version number:    8.6\n  Total amount of global memory:                 7972 MBytes (83596410', "https://github.com/CYBIRD-D/How-to-Choose-your-LLM-Model-for-translation/blob/52379077acab0e1d450adb86345f9e705bb6cade/Nvidia_GPU_Specification.md : '| RTX 3060 Ti 8GB (GDDR6) | 4864 | 8 | 448 |' (GDDR6X variant: 608 GB/s)"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-4060ti-8gb', "name": 'NVIDIA GeForce RTX 4060 Ti 8GB',
        "aliases": ['RTX 4060 Ti 8GB', 'RTX 4060Ti 8GB', 'GeForce RTX 4060 Ti 8GB', '4060 Ti 8GB', '4060Ti 8GB'],
        "memory_gb_marketing": 8, "compute_capability": '8.9', "hbm_bandwidth_tbps": 0.288,
        'memory_total_bytes_reported': 7806 * MIB,
        "memory_source": "torch: public GitHub file found by exact-string search (the index returns no repository/path): 'Ultralytics 8.4.82 🚀 Python-3.12.3 torch-2.12.1+cu130 CUDA:0 (NVIDIA GeForce RTX 4060 Ti, 7806MiB)\\n... OS                     Linux-6.17.0-29-generic-x86_64-with-glibc2.39  [torch total_memory/2**20; 7806 < 8188 so this '",
        "sources": ["find_string index file id 66857511471 (public GitHub file; the index returns no repository/path): Linux llama.cpp eval 'Hardware: NVIDIA GeForce RTX 4060 Ti, 8188 MiB' (nvidia-smi total)", "find_string index file id 70128357367 (public GitHub file; the index returns no repository/path): '| GPU | NVIDIA GeForce RTX 4060 Ti, 8188 MiB, compute capability **8.9** (Ada), VBIOS 95.06.26.00.52 |'", "note: the 8 GB and 16 GB SKUs report the identical device name 'NVIDIA GeForce RTX 4060 Ti'; resolve by total memory"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-4080-super', "name": 'NVIDIA GeForce RTX 4080 SUPER',
        "aliases": ['RTX 4080 SUPER', 'GeForce RTX 4080 SUPER', '4080 SUPER', 'RTX 4080 Super', '4080 Super'],
        "memory_gb_marketing": 16, "compute_capability": '8.9', "hbm_bandwidth_tbps": 0.736,
        'memory_total_bytes_reported': 15944 * MIB,
        "memory_source": "torch: public GitHub file found by exact-string search (the index returns no repository/path): 'Ultralytics 8.4.90 🚀 Python-3.10.12 torch-2.12.1+cu130 CUDA:0 (NVIDIA GeForce RTX 4080 SUPER, 15944MiB)  [torch total_memory/2**20]'",
        "sources": ['find_string index file id 13464696544 (public GitHub file; the index returns no repository/path): deviceQuery (CUDA 12.4/12.3) \'Device 0: "NVIDIA GeForce RTX 4080 SUPER" ... CUDA Capability Major/Minor version number:    8.9\n  Total amount of global memory:                 16072 MBytes (16852844544 ', "find_string index file id 63565374082 (public GitHub file; the index returns no repository/path): Windows 'torch-2.4.1+cu121 CUDA:0 (NVIDIA GeForce RTX 4080 SUPER, 16375MiB)' (WDDM, ~= nvidia-smi)", "https://github.com/CYBIRD-D/How-to-Choose-your-LLM-Model-for-translation/blob/52379077acab0e1d450adb86345f9e705bb6cade/Nvidia_GPU_Specification.md : '| RTX 4080 SUPER | 10240 | 16 | 736 |'"],
    },
    {
        **_NV_DEFAULTS, "id": 'rtx-2080', "name": 'NVIDIA GeForce RTX 2080',
        "aliases": ['RTX 2080', 'GeForce RTX 2080', '2080', 'RTX 2080 8GB'],
        "memory_gb_marketing": 8, "compute_capability": '7.5', "hbm_bandwidth_tbps": 0.448,
        'memory_total_bytes_reported': 8335327232,
        "memory_source": 'deviceQuery: public GitHub file found by exact-string search (the index returns no repository/path): \'Device 0: "GeForce RTX 2080"\\n  CUDA Driver Version / Runtime Version          10.0 / 10.0\\n  CUDA Capability Major/Minor version number:    7.5\\n  Total amount of global memory:                 7949 MBytes (8335327232 byte\'',
        "sources": ["bandwidth from the same deviceQuery: 'Memory Clock rate:                             7000 Mhz' / 'Memory Bus Width:                              256-bit' -> 7000e6*2*32 B = 448 GB/s", "find_string index file id 4862093884 (public GitHub file; the index returns no repository/path): deviceQuery 'Total amount of global memory:                 8192 MBytes (8589934592 bytes)' (CUDA 11.1, full 8 GiB, typical of Windows)"],
    },
    {
        **_NV_DEFAULTS, "vendor": 'AMD', "id": 'mi325x', "name": 'AMD Instinct MI325X',
        "aliases": ['MI325X', 'Instinct MI325X', 'AMD Instinct MI325X'],
        "memory_gb_marketing": 256, "compute_capability": None, "hbm_bandwidth_tbps": 6.0,
        'memory_total_bytes_reported': 268419072 * 1024,
        "memory_source": "rocminfo: https://github.com/ROCm/ROCm/issues/6023: 'Name:                    gfx942 ... Marketing Name:          AMD Instinct MI325X ... Compute Unit:            304 ... Pool Info:\\n    Pool 1: GLOBAL; COARSE GRAINED   268419072 KB  [268419072 KB = 255.98 GiB; same issue t'",
        "sources": ["gfx target gfx942: https://github.com/ROCm/legacy-rocm-build/blob/089d7513c55fc7b6edb2a75b83cb40ca883a0ec2/docs/reference/gpu-arch-specs.rst : '- MI325X / - CDNA3 / - gfx942 / - 256' (VRAM GiB)", "https://github.com/stas00/ml-engineering/blob/744d01e18b79512572f64a6bbd8b5f4a725203a7/compute/accelerator/README.md : '| AMD MI325X            |            256 | HBM3e |                        6.00 |' (TB/s)"],
    },
    {
        **_NV_DEFAULTS, "vendor": 'AMD', "id": 'mi355x', "name": 'AMD Instinct MI355X',
        "aliases": ['MI355X', 'Instinct MI355X', 'AMD Instinct MI355X'],
        "memory_gb_marketing": 288, "compute_capability": None, "hbm_bandwidth_tbps": 8.0,
        "sources": ["https://github.com/SemiAnalysisAI/InferenceX/pull/2522 (MI355X vLLM): '--gpu-memory-utilization 0.95 vLLM requests 273.6 GiB' (273.6/0.95 = 288.0 GiB total)", "find_string index file id 12038891190 (public GitHub file; the index returns no repository/path): OpenCL-Benchmark on gfx950 '| Memory, Cache  | 294896 MB VRAM' / '294896 MB global, 301973504 KB constant' (294896 MiB = 287.98 GiB)", "gfx950: https://github.com/ROCm/rocm-libraries/issues/9055 rocminfo 'Name:                    gfx950 ... Marketing Name:          AMD Instinct MI355X'; https://github.com/ROCm/legacy-rocm-build/blob/089d7513c55fc7b6edb2a75b83cb40ca883a0ec2/docs/reference/gpu-arch-specs.rst '- MI355X / - CDNA4 / - gf"],
    },
    {
        **_NV_DEFAULTS, "vendor": 'AMD', "id": 'radeon-pro-w7900', "name": 'AMD Radeon PRO W7900',
        "aliases": ['Radeon PRO W7900', 'AMD Radeon PRO W7900 Dual Slot', 'AMD Radeon Pro W7900', 'Radeon Pro W7900', 'W7900'],
        "memory_gb_marketing": 48, "compute_capability": None, "hbm_bandwidth_tbps": 0.864,
        'memory_total_bytes_reported': 50315264 * 1024,
        "memory_source": "rocminfo: https://github.com/ROCm/ROCm/issues/5181: 'Name:                    gfx1100 ... Marketing Name:          AMD Radeon PRO W7900 Dual Slot ... Pool 1\\n      Segment:                 GLOBAL; FLAGS: COARSE GRAINED      \\n      Size:                    50315264(0x2ffc000'",
        "sources": ["find_string index file id 70653282361 (public GitHub file; the index returns no repository/path): W7900D 'gfx1100, 48 GB VRAM (51,522,830,336 B total)' (= 50315264 KB)", "gfx1100: https://github.com/ROCm/legacy-rocm-build/blob/089d7513c55fc7b6edb2a75b83cb40ca883a0ec2/docs/reference/gpu-arch-specs.rst '- Radeon PRO W7900 / - RDNA3 / - gfx1100 / - 48'", "find_string index file id 52792079191 (public GitHub file; the index returns no repository/path): '| Radeon Pro W7900 | 48 GB GDDR6 ECC | 864 GB/s | ... (384-bit 18 Gbps)'"],
    },
    {
        **_NV_DEFAULTS, "vendor": 'AMD', "id": 'rx-7900-xtx', "name": 'AMD Radeon RX 7900 XTX',
        "aliases": ['Radeon RX 7900 XTX', 'RX 7900 XTX', '7900 XTX', '7900XTX', 'AMD Radeon RX 7900XTX'],
        "memory_gb_marketing": 24, "compute_capability": None, "hbm_bandwidth_tbps": 0.96,
        'memory_total_bytes_reported': 25149440 * 1024,
        "memory_source": "rocminfo: https://github.com/ROCm/ROCm/issues/5933: 'Name:                    gfx1100 ... Marketing Name:          Radeon RX 7900 XTX ... Pool 1\\n      Segment:                 GLOBAL; FLAGS: COARSE GRAINED      \\n      Size:                    25149440(0x17fc000) KB  [= 23.'",
        "sources": ["find_string index file id 56978275531 (public GitHub file; the index returns no repository/path): ROCm torch '_CudaDeviceProperties(name='Radeon RX 7900 XTX', major=11, minor=0, gcnArchName='gfx1100', total_memory=24560MB, ...)' (24560 MiB = 25149440 KB)", "https://github.com/ilya-zlobintsev/LACT/pull/533: 'VRAM Size: 24560 MiB' ... 'Theoretical VRAM Bandwidth: 959'", "gfx1100: https://github.com/ROCm/legacy-rocm-build/blob/089d7513c55fc7b6edb2a75b83cb40ca883a0ec2/docs/reference/gpu-arch-specs.rst '- Radeon RX 7900 XTX / - RDNA3 / - gfx1100 / - 24'"],
    },

]

# Other spellings of cards already in the catalog, each with the evidence that it is the same memory.
# Added in stop 12 (two helpers' searches of public captures): laptop, older and workstation cards, the GH200 144GB,
# and the Pascal cards vLLM refuses (so kvplan can say why). A CUDA/torch total where one was found, else nvidia-smi's.
EXTRA_GPUS += [
    {
        **_NV_DEFAULTS, 'id': 'a800-40gb-pcie', 'name': 'NVIDIA A800 40GB Active',
        'aliases': ['A800 40GB PCIe', 'NVIDIA A800 40GB Active', 'A800 PCIe 40 GB', 'NVIDIA A800 40GB PCIe', 'A800'],
        'memory_gb_marketing': 40,
        'compute_capability': '8.0',
        'hbm_bandwidth_tbps': 1.555,
        'nvidia_smi_total_mib': 40960,
        'memory_source': "nvidia_smi_mib: torch: not found. nvidia-smi (Ubuntu 22.04, driver 550.127.05): index id 40760344465: '|   0  NVIDIA A800 40GB Active        Off |   00000000:27:00.0 Off |                    0 |' / '| 30%   58C    P0             55W /  240W |       1MiB /  40960MiB |'",
        'sources': ["the CUDA/driver name of the 40GB PCIe A800 (PCI id 20F6) is 'NVIDIA A800 40GB Active': index id 67161954526 '| NVIDIA A800 40GB Active | 20F6 10DE 180A |'", "bandwidth 1555 GB/s: https://cputronic.com/gpu/compare/nvidia-rtx-a4500-vs-nvidia-a800-pcie-40-gb 'Higher Bandwidth: 1555 GB/s (640.0 GB/s vs 1555 GB/s)'; also index id 68975056964 '| 带宽 | **1,555 GB/s** |' for 'A800 40GB PCIe'", "CC 8.0: index id 54720612139 '4× NVIDIA A800 40GB (ids 0–3)' with 'LAMMPS ... (GPU sm_80 ...)'"],
    },
    {
        **_NV_DEFAULTS, 'id': 'gh200-144gb', 'name': 'NVIDIA GH200 144G HBM3e',
        'aliases': ['GH200 144GB', 'NVIDIA GH200 144G HBM3e', 'GH200 144G HBM3e', 'GH200'],
        'memory_gb_marketing': 144,
        'compute_capability': '9.0',
        'hbm_bandwidth_tbps': 4.9,
        'memory_total_bytes_reported': 153008209920,
        'memory_source': 'cuDeviceTotalMem_v2 (what torch total_memory returns): index id 71545924480: \'// Snapshot of device 0 on this host via cuDeviceGetAttribute(1..148), cuDeviceGetName and cuDeviceTotalMem_v2 (CUDA Driver 13.2)\' ... \'name = "NVIDIA GH200 144G HBM3e"; memory_bytes = 153008209920ULL;\' (= 142.50 GiB)',
        'sources': ["agrees with a vLLM error on GH200 (UMA): index id 57142538960 quoting https://github.com/vllm-project/vllm/issues/35313: 'ValueError: Free memory on device cuda:0 (74.9/142.5 GiB) on startup is less than desired GPU memory utilization (0.9, 128.25 GiB)'", "torch assert on the same value: index id 71276350143: 'assert properties.total_memory == 153008209920' with name 'NVIDIA GH200 144G HBM3e' and (major, minor) == (9, 0)", "nvidia-smi: index id 57699609541: '0, NVIDIA GH200 144G HBM3e, 580.173.02, 146831 MiB, 9.0'", "bandwidth: derived from the attribute snapshot in index id 71545924480 (memory clock attr 36 = 3201000 kHz, bus width attr 37 = 6144 bit): 3.201e9*2*768 B/s = 4.92 TB/s, which matches NVIDIA's 4.9 TB/s spec (derived, no quoted spec line)", "note: GH200 is a UMA system, so vLLM's free-memory check can report low free memory because the OS page cache counts against it (vllm#35313). The total is stable at 142.5 GiB."],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-2000-ada', 'name': 'NVIDIA RTX 2000 Ada Generation',
        'aliases': ['RTX 2000 Ada', 'RTX 2000 Ada Generation', 'NVIDIA RTX 2000 Ada Generation'],
        'memory_gb_marketing': 16,
        'compute_capability': '8.9',
        'hbm_bandwidth_tbps': 0.224,
        'nvidia_smi_total_mib': 16380,
        'memory_source': "nvidia_smi_mib: torch: only 1-decimal values found, so no exact byte count. index id 55206655806 (RunPod pod, torch 2.4.1+cu124): 'server log: `VRAM capped to 11.0GB (0.701 of 15.7GB)`' and index id 56812424923 (torch 2.9.1+cu128): '- cuda:0..3: NVIDIA RTX 2000 Ada Generation, 15.8 GiB'. nvidia-smi: index id 59906991275: 'NVIDIA RTX 2000 Ada Generation, 16,380 MiB, driver 595.97'",
        'sources': ["nvidia-smi also index id 68330442097: 'Device: NVIDIA RTX 2000 Ada Generation, 16,380 MiB'", "bandwidth 224 GB/s: https://www.itcreations.com/nvidia-gpu/nvidia-rtx-2000-ada-gpu '| Memory Bandwidth | 224GB/s |'", "CC 8.9 (Ada Lovelace AD107): https://topcpu.net/es/gpu-c/rtx-2000-ada-generation-vs-geforce-rtx-2060 'AD107 ... Ada Lovelace' (CC 8.9 follows from Ada; no quoted '8.9' line found)", 'note: Torch total is about 15.7 to 15.8 GiB (about 16,100 MiB). Both values are rounded, so no byte value is recorded.'],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-2060', 'name': 'NVIDIA GeForce RTX 2060',
        'aliases': ['RTX 2060', 'GeForce RTX 2060', 'NVIDIA GeForce RTX 2060', 'RTX 2060 6GB'],
        'memory_gb_marketing': 6,
        'compute_capability': '7.5',
        'hbm_bandwidth_tbps': 0.336,
        'memory_total_bytes_reported': 6205472768,
        'memory_source': "YOLOv5/torch (OS not stated; Windows captures of this card show 6144MiB, so likely Linux): index id 24616949146: 'YOLOv5 🚀 2024-4-17 Python-3.10.14 torch-2.2.2+cu121 CUDA:0 (NVIDIA GeForce RTX 2060, 5918MiB)'",
        'sources': ["nvidia-smi (Linux-7.0.0 kernel, driver 595.84): index id 69155112110: 'GPU present but unused: NVIDIA GeForce RTX 2060, 595.84, 6144 MiB'", "Windows YOLOv5: index id 44560900579: 'CUDA:0 (NVIDIA GeForce RTX 2060, 6144MiB)'", "hashcat CUDA API (Linux, CUDA 13.0): index id 1328863475: 'NVIDIA GeForce RTX 2060, 5105/6143 MB'", "CC: llama.cpp banner index id 71588814040: 'NVIDIA GeForce RTX 2060, compute capability 7.5'", 'index id 66550183593 (GPU_BANDWIDTH_GB_S table, \'official vendor specs\'): \'"RTX 2060":   336,\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-2070', 'name': 'NVIDIA GeForce RTX 2070',
        'aliases': ['RTX 2070', 'GeForce RTX 2070', 'NVIDIA GeForce RTX 2070', '2070'],
        'memory_gb_marketing': 8,
        'compute_capability': '7.5',
        'hbm_bandwidth_tbps': 0.448,
        'memory_total_bytes_reported': 8160018432,
        'memory_source': "torch (probable; Linux, torch 2.5.1+cu124, driver 580.173.02; nvidia-smi would read 8192): index id 67154999582: 'GPU 0: NVIDIA GeForce RTX 2070, 7782 MiB total, cc 7.5'",
        'sources': ["Linux Ollama note: index id 67106406268: 'Hardware: NVIDIA GeForce RTX 2070, 7.6 GiB VRAM.'", 'index id 66550183593 (GPU_BANDWIDTH_GB_S table, \'official vendor specs\'): \'"RTX 2070":   448,\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-2070-super', 'name': 'NVIDIA GeForce RTX 2070 SUPER',
        'aliases': ['RTX 2070 SUPER', 'RTX 2070 Super', 'GeForce RTX 2070 SUPER', 'NVIDIA GeForce RTX 2070 SUPER'],
        'memory_gb_marketing': 8,
        'compute_capability': '7.5',
        'hbm_bandwidth_tbps': 0.448,
        'memory_total_bytes_reported': 8359247872,
        'memory_source': "ultralytics/torch (OS not stated; Windows shows 8192MiB, so likely Linux; torch-2.1.1+cu121): index id 2537917375: 'Ultralytics YOLOv8.0.231 🚀 Python-3.9.17 torch-2.1.1+cu121 CUDA:0 (NVIDIA GeForce RTX 2070 SUPER, 7972MiB)'",
        'sources': ["older stack (torch-1.13.0+cu117): index id 22141273372: 'CUDA:0 (NVIDIA GeForce RTX 2070 SUPER, 7982MiB)'", "Windows YOLOv5: index id 30394939168: 'CUDA:0 (NVIDIA GeForce RTX 2070 SUPER, 8192MiB)'", "CC 7.5: Turing; no card-specific CC line captured (see RTX 2080 SUPER 'sm_75' index id 56293056908)", 'index id 66550183593 (GPU_BANDWIDTH_GB_S table, \'official vendor specs\'): \'"RTX 2070 SUPER": 448,\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-2080-super', 'name': 'NVIDIA GeForce RTX 2080 SUPER',
        'aliases': ['RTX 2080 SUPER', 'RTX 2080 Super', 'GeForce RTX 2080 SUPER', 'NVIDIA GeForce RTX 2080 SUPER', '2080 SUPER'],
        'memory_gb_marketing': 8,
        'compute_capability': '7.5',
        'hbm_bandwidth_tbps': 0.496,
        'memory_total_bytes_reported': 8369733632,
        'memory_source': "YOLOv5/torch (Linux, /home/caic/Downloads, torch-1.13.1+cu117): index id 9972342036: 'YOLOv5 🚀 v7.0-217-g8c45e51 Python-3.9.17 torch-1.13.1+cu117 CUDA:0 (NVIDIA GeForce RTX 2080 SUPER, 7982MiB)'",
        'sources': ["same author README: index id 9877859526: 'NVIDIA GeForce RTX 2080 SUPER, 7982.312 MB'", "hashcat CUDA API (CUDA 12.2, OS unknown): index id 35272598388: 'NVIDIA GeForce RTX 2080 SUPER, 7025/7969 MB, 48MCU'", "nvidia-smi compute_cap: index id 58666867859: 'NVIDIA GeForce RTX 2080 SUPER, 7.5'", "llama.cpp fixture (Windows-like): index id 69645758331: 'RTX 2080 SUPER, compute capability 7.5, VMM: yes, VRAM: 8191 MiB'", 'index id 66550183593 (GPU_BANDWIDTH_GB_S table, \'official vendor specs\'): \'"RTX 2080 SUPER": 496,\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-3070-ti', 'name': 'NVIDIA GeForce RTX 3070 Ti',
        'aliases': ['RTX 3070 Ti', 'GeForce RTX 3070 Ti', 'NVIDIA GeForce RTX 3070 Ti', '3070 Ti', 'RTX 3070 Ti 8GB'],
        'memory_gb_marketing': 8,
        'compute_capability': '8.6',
        'hbm_bandwidth_tbps': 0.608,
        'memory_total_bytes_reported': 8220835840,
        'memory_source': "llama.cpp ggml_cuda_init (VRAM = cudaDeviceProp.totalGlobalMem/MiB; Linux build w/ static libstdc++): index id 56921583246: 'Device 0: NVIDIA GeForce RTX 3070 Ti, compute capability 8.6, VMM: yes, VRAM: 7840 MiB'",
        'sources': ["same machine notes: index id 56715978700: 'GPU: NVIDIA GeForce RTX 3070 Ti, 7840 MiB VRAM'", "whisper.cpp (Linux, -f /dev/null): index id 67108680130: 'ggml_cuda_init: found 1 CUDA devices (Total VRAM: 7833 MiB)'", "Windows: llama.cpp index id 61060557339 'VRAM: 8191 MiB'; Ultralytics index id 60736085558 '(NVIDIA GeForce RTX 3070 Ti, 8192MiB)'; hashcat index id 57914466765 '7108/8191 MB'", 'llama.cpp source showing VRAM = prop.totalGlobalMem/(1024*1024): index id 6200971733', 'index id 66550183593 (GPU_BANDWIDTH_GB_S table, \'official vendor specs\'): \'"RTX 3070 Ti": 608,\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-3080-laptop-16gb', 'name': 'NVIDIA GeForce RTX 3080 Laptop GPU',
        'aliases': ['RTX 3080 Laptop', 'RTX 3080 Laptop GPU', 'GeForce RTX 3080 Laptop GPU', 'NVIDIA GeForce RTX 3080 Laptop GPU', 'RTX 3080 Laptop 16GB', 'RTX 3080 Laptop GPU 16GB'],
        'memory_gb_marketing': 16,
        'compute_capability': '8.6',
        'hbm_bandwidth_tbps': 0.448,
        'memory_total_bytes_reported': 16769875968,
        'memory_source': "ultralytics/torch (Linux, /home/aubrey, torch-2.8.0+cu128): index id 46077367386: 'Ultralytics 8.3.192 🚀 Python-3.12.11 torch-2.8.0+cu128 CUDA:0 (NVIDIA GeForce RTX 3080 Laptop GPU, 15993MiB)'",
        'sources': ["same user, older stack (Linux, torch-2.3.0+cu121): index id 46891159742: 'CUDA:0 (NVIDIA GeForce RTX 3080 Laptop GPU, 16110MiB)'", "llama.cpp parser comment (OS unknown): index id 55075090258: 'NVIDIA GeForce RTX 3080 Laptop GPU, compute capability 8.6, VMM: yes, VRAM: 16383 MiB' (looks Windows)", 'index id 53257572530 (GPU_BANDWIDTH_DB, \'Sources: Wikipedia GeForce 40/30/50 series\'): \'"RTX 3080 Laptop GPU":    { vram: 16, bw: 448 }, // 256-bit at 14 Gbps (8GB & 16GB same bw)\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-4000-sff-ada', 'name': 'NVIDIA RTX 4000 SFF Ada Generation',
        'aliases': ['RTX 4000 SFF Ada', 'RTX 4000 SFF Ada Generation', 'NVIDIA RTX 4000 SFF Ada Generation'],
        'memory_gb_marketing': 20,
        'compute_capability': '8.9',
        'hbm_bandwidth_tbps': None,
        'memory_total_bytes_reported': 21029191680,
        'memory_source': "torch (Ultralytics, torch-2.8.0+cu128, Linux): index id 28345230570: 'Ultralytics 8.3.203 🚀 Python-3.12.3 torch-2.8.0+cu128 CUDA:0 (NVIDIA RTX 4000 SFF Ada Generation, 20055MiB)'",
        'sources': ["older capture differs: index id 394398432: 'Ultralytics 8.3.27 __ Python-3.10.15 torch-2.5.1+cu124 CUDA:0 (NVIDIA RTX 4000 SFF Ada Generation, 20138MiB)' (= 21116223488 bytes; 83 MiB more, probably an older driver)", "nvidia-smi: index id 2059703640: '0, NVIDIA RTX 4000 SFF Ada Generation, 20475 MiB, 580.95.05, 100 %'", 'bandwidth: not found in index (spec commonly 280 GB/s, unverified here)', "CC 8.9: Ada AD104, https://computerbase.de/2023-03/nvidia-rtx-4000-sff-edition-profis-bekommen-ad104-mit-20-gb-und-nur-70-watt-tdp 'Es nutzt AD104 mit 20 GB bei 70 Watt' (CC from architecture)"],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-4060', 'name': 'NVIDIA GeForce RTX 4060',
        'aliases': ['RTX 4060', 'GeForce RTX 4060', 'NVIDIA GeForce RTX 4060', '4060', 'RTX 4060 8GB'],
        'memory_gb_marketing': 8,
        'compute_capability': '8.9',
        'hbm_bandwidth_tbps': 0.272,
        'memory_total_bytes_reported': 8186232832,
        'memory_source': "ultralytics/torch (Linux, /home/user/miniconda3, torch-2.5.1+cu121): index id 61661377491: 'Ultralytics 8.4.75 🚀 Python-3.10.20 torch-2.5.1+cu121 CUDA:0 (NVIDIA GeForce RTX 4060, 7807MiB)'",
        'sources': ["nvidia-smi total (Windows, driver 591.86): index id 66489823453: 'Runtime GPU | NVIDIA GeForce RTX 4060, compute capability 8.9, 8188 MiB'", "nvidia-smi csv fixture: index id 58507109806: '0, NVIDIA GeForce RTX 4060, 7, 1388, 8188, 30, [N/A], 115.00'", "CC: index id 66489823453 (above) 'compute capability 8.9'", 'index id 66550183593 (GPU_BANDWIDTH_GB_S table, \'official vendor specs\'): \'"RTX 4060":   272,\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-4050-laptop', 'name': 'NVIDIA GeForce RTX 4050 Laptop GPU',
        'aliases': ['RTX 4050 Laptop', 'RTX 4050 Laptop GPU', 'GeForce RTX 4050 Laptop GPU', 'NVIDIA GeForce RTX 4050 Laptop GPU'],
        'memory_gb_marketing': 6,
        'compute_capability': '8.9',
        'hbm_bandwidth_tbps': None,
        'memory_total_bytes_reported': 6083706880,
        'memory_source': "native Linux (CachyOS kernel 7.2.2, driver 610.57.04): index id 57879027362: 'GPU: NVIDIA GeForce RTX 4050 Laptop GPU, compute capability 8.9, 6,083,706,880 bytes reported memory, driver 610.57.04'",
        'sources': ["same card, other machine (Linux, driver 610.57.04): index id 57748865262: 'NVIDIA GeForce RTX 4050 Laptop GPU, compute capability 8.9, 20 SMs, driver 610.57.04, 6,141 MiB reported memory' (nvidia-smi figure)", "Windows (WDDM), PyTorch 2.8.0+cu128: index id 68466149987: 'compute capability 8.9, 6,140.5 MiB CUDA-visible VRAM; driver 581.42'", "under WSL2 vLLM prints 6.0 GiB: Tegdam/pickr_ai tests/bench/runner/test_enginelog.py @641ea05 'Free memory on device (4.95/6.0 GiB) on startup' (records carry that total as gpu.total_gib with wsl2 true)", "CC: index ids 70801799848, 19184070583 ('NVIDIA GeForce RTX 4050 Laptop GPU, compute capability 8.9')"],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-4060-laptop', 'name': 'NVIDIA GeForce RTX 4060 Laptop GPU',
        'aliases': ['RTX 4060 Laptop', 'RTX 4060 Laptop GPU', 'GeForce RTX 4060 Laptop GPU', 'NVIDIA GeForce RTX 4060 Laptop GPU'],
        'memory_gb_marketing': 8,
        'compute_capability': '8.9',
        'hbm_bandwidth_tbps': 0.256,
        'memory_total_bytes_reported': 8185184256,
        'memory_source': "ultralytics/torch (Linux-style 'engine/trainer', torch-2.9.0+cu128): index id 59283616846: 'Ultralytics 8.4.5 🚀 Python-3.12.12 torch-2.9.0+cu128 CUDA:0 (NVIDIA GeForce RTX 4060 Laptop GPU, 7806MiB)'",
        'sources': ["deviceQuery Linux (driver CUDA 12.3, /home/max/miniconda3): index id 49027375696: 'Total amount of global memory:                 7940 MBytes (8325824512 bytes)' and 'CUDA Capability Major/Minor version number:    8.9'", "ultralytics Linux (stated 'on a Linux system', torch-2.3.1+cu121): index id 11062637209: 'CUDA:0 (NVIDIA GeForce RTX 4060 Laptop GPU, 7915MiB)'", "ultralytics (torch-2.5.1+cu121): index id 18115660765: 'CUDA:0 (NVIDIA GeForce RTX 4060 Laptop GPU, 7940MiB)'", "ultralytics (torch-2.14.0+cu130): index id 70070248036: 'CUDA:0 (NVIDIA GeForce RTX 4060 Laptop GPU, 7806MiB)'", "llama.cpp (cudaDeviceProp.totalGlobalMem): index id 57488598479: 'RTX 4060 Laptop GPU, compute capability 8.9, VMM: yes, VRAM: 7815 MiB'", "Windows (WDDM) deviceQuery: index id 48007390377: 'Total amount of global memory:                 8188 MBytes (8585216000 bytes)'; Windows Ultralytics index id 9450613202: '(NVIDIA GeForce RTX 4060 Laptop GPU, 8188MiB)'", "nvidia-smi: index id 67266165999: '0, NVIDIA GeForce RTX 4060 Laptop GPU, 75, 7000, 8188, 88.5' (test fixture)", "deviceQuery index id 49027375696: 'Memory Clock rate: 8001 Mhz', 'Memory Bus Width: 128-bit'", 'index id 53257572530 (GPU_BANDWIDTH_DB, \'Sources: Wikipedia GeForce 40/30/50 series\'): \'"RTX 4060 Laptop GPU": { vram: 8,  bw: 256 }, // 128-bit at 16 Gbps\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-4070-laptop', 'name': 'NVIDIA GeForce RTX 4070 Laptop GPU',
        'aliases': ['RTX 4070 Laptop', 'RTX 4070 Laptop GPU', 'GeForce RTX 4070 Laptop GPU', 'NVIDIA GeForce RTX 4070 Laptop GPU'],
        'memory_gb_marketing': 8,
        'compute_capability': '8.9',
        'hbm_bandwidth_tbps': 0.256,
        'memory_total_bytes_reported': 8185184256,
        'memory_source': "ultralytics/torch (Linux, /home/tdelorenzi, torch-2.7.1+cu128): index id 5685207749: 'Ultralytics 8.3.170 🚀 Python-3.12.3 torch-2.7.1+cu128 CUDA:0 (NVIDIA GeForce RTX 4070 Laptop GPU, 7806MiB)'",
        'sources': ['same machine, other logs: index ids 44839869456, 45199928581 (7806MiB)', "CUDA device_properties (Linux ./build): index id 60341786501: 'Total amount of global memory: 7.65 GB' (rounded GiB, different driver?)", "hashcat CUDA API (Linux): index id 59716093806: 'NVIDIA GeForce RTX 4070 Laptop GPU, 7296/7807 MB'", "Windows: Ultralytics index id 29842418392 '(NVIDIA GeForce RTX 4070 Laptop GPU, 8188MiB)'; llama.cpp index id 68739863494 'VRAM: 8187 MiB'", "Ultralytics '/home/' path but 8188MiB (probably WSL): index id 54587102016", "CC: index id 60341786501: 'Major revision number: 8 / Minor revision number: 9'", 'index id 53257572530 (GPU_BANDWIDTH_DB, \'Sources: Wikipedia GeForce 40/30/50 series\'): \'"RTX 4070 Laptop GPU": { vram: 8,  bw: 256 }, // 128-bit at 16 Gbps\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-4080-laptop', 'name': 'NVIDIA GeForce RTX 4080 Laptop GPU',
        'aliases': ['RTX 4080 Laptop', 'RTX 4080 Laptop GPU', 'GeForce RTX 4080 Laptop GPU', 'NVIDIA GeForce RTX 4080 Laptop GPU'],
        'memory_gb_marketing': 12,
        'compute_capability': '8.9',
        'hbm_bandwidth_tbps': 0.432,
        'nvidia_smi_total_mib': 12282,
        'memory_source': "nvidia_smi_mib: torch OOM text (DOUBTFUL: illustrative 'Symptom' block in a README of a pixi/Linux project, whose own device banner prints '11.6 GB'): index id 61958783361: '(GPU 0; 11.57 GiB total capacity; ...)' and 'device: cuda (NVIDIA GeForce RTX 4080 Laptop GPU, sm_89, 11.6 GB)'",
        'sources': ["nvidia-smi (Linux driver 580.159.03): index id 57508345888: 'NVIDIA GeForce RTX 4080 Laptop GPU, 12,282 MiB VRAM.' / 'NVIDIA driver `580.159.03`'", "Windows YOLOv5 (torch): index id 38216038192: 'CUDA:0 (NVIDIA GeForce RTX 4080 Laptop GPU, 12282MiB)'; Windows: index id 63195659012 '11,99 GiB, sm_89'", "CC: index id 61958783361 'sm_89'", 'index id 53257572530 (GPU_BANDWIDTH_DB, \'Sources: Wikipedia GeForce 40/30/50 series\'): \'"RTX 4080 Laptop GPU": { vram: 12, bw: 432 }, // 192-bit at 18 Gbps\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-4090-laptop', 'name': 'NVIDIA GeForce RTX 4090 Laptop GPU',
        'aliases': ['RTX 4090 Laptop', 'RTX 4090 Laptop GPU', 'GeForce RTX 4090 Laptop GPU', 'NVIDIA GeForce RTX 4090 Laptop GPU'],
        'memory_gb_marketing': 16,
        'compute_capability': '8.9',
        'hbm_bandwidth_tbps': 0.576,
        'nvidia_smi_total_mib': 16376,
        'memory_source': 'nvidia_smi_mib: not found (native-Linux CUDA/torch total not found; only WSL/Windows values)',
        'sources': ["nvidia-smi (Ubuntu 26.04, driver 615.71.09): index id 70766112468: '1x NVIDIA GeForce RTX 4090 Laptop GPU, 16 GB (16376 MiB), compute capability 8.9'", "nvidia-smi (Linux driver 580.173.02): index id 63636683260: 'GPU Ready: ready (NVIDIA GeForce RTX 4090 Laptop GPU, 580.173.02, 16376 MiB)'", "WSL deviceQuery (/mnt/c path): index id 53124659440: 'Total amount of global memory:                 16376 MBytes (17170956288 bytes)'", "WSL torch (/usr/lib/wsl): index id 70957236156: 'GPU: NVIDIA GeForce RTX 4090 Laptop GPU, 15.99 GiB, compute capability (8, 9)'", "unverified note, Linux driver 580: index id 61395521128: 'RTX 4090 Laptop (15.6 GB VRAM), Driver 580, CUDA 12.6'", 'index id 53257572530 (GPU_BANDWIDTH_DB, \'Sources: Wikipedia GeForce 40/30/50 series\'): \'"RTX 4090 Laptop GPU": { vram: 16, bw: 576 }, // 256-bit at 18 Gbps\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-4500-ada', 'name': 'NVIDIA RTX 4500 Ada Generation',
        'aliases': ['RTX 4500 Ada', 'RTX 4500 Ada Generation', 'NVIDIA RTX 4500 Ada Generation'],
        'memory_gb_marketing': 24,
        'compute_capability': '8.9',
        'hbm_bandwidth_tbps': 0.432,
        'nvidia_smi_total_mib': 24570,
        'memory_source': "nvidia_smi_mib: torch: not found. nvidia-smi: index id 54522518529: '- GPU: NVIDIA RTX 4500 Ada Generation, 24,570 MiB.' / '- NVIDIA driver: 580.119.02'",
        'sources': ["nvidia-smi also index id 71605049994: '| GPU | NVIDIA RTX 4500 Ada Generation, 24570 MiB = 25.763 GB |' (Windows, driver 595.79)", "rounded and probably nvidia-smi-derived (Windows): index id 71435255418: 'NVIDIA RTX 4500 Ada Generation, 23.99 GiB, driver 595.79 · Windows 11' (24570 MiB = 23.99 GiB, so not a torch total)", "index id 62605350303: 'device=cuda (NVIDIA RTX 4500 Ada Generation, 24.0 GiB)' (rounded, source unclear)", "bandwidth 432 GB/s: https://askgeek.io/es/gpus/NVIDIA/RTX-4500-Ada-Generation 'Ancho de banda de la memoria - 432.0 GB/s'", "CC 8.9: index id 61390909888: '2 × NVIDIA RTX 4500 Ada Generation, 24 GB each, compute 8.9'"],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-5060', 'name': 'NVIDIA GeForce RTX 5060',
        'aliases': ['RTX 5060', 'GeForce RTX 5060', 'NVIDIA GeForce RTX 5060'],
        'memory_gb_marketing': 8,
        'compute_capability': '12.0',
        'hbm_bandwidth_tbps': 0.448,
        'nvidia_smi_total_mib': 8151,
        'memory_source': 'nvidia_smi_mib: not found on Linux (only Windows CUDA totals)',
        'sources': ["nvidia-smi (Linux driver 595.71.05, /usr/local/cuda): index id 56694176032: 'nvidia-smi sees GPU 0: NVIDIA GeForce RTX 5060, compute capability 12.0, 8151 MiB, driver 595.71.05'", "Windows deviceQuery: index id 63611850667: 'CUDA Capability Major/Minor version number:    12.0' / 'Total amount of global memory:                 8151 MBytes (8546484224 bytes)'", "Windows Ultralytics: index id 61950086157: 'CUDA:0 (NVIDIA GeForce RTX 5060, 8151MiB)'; Windows whisper.cpp index id 68302371570 'VRAM: 8150 MiB'", 'bandwidth: index id 70177599123: \'"rtx 5060": 448\' (vendor-spec table); NOTE other tables disagree: index id 66906406888 \'"rtx 5060": 304.0\', index id 54786106355 \'"RTX 5060": 336.0\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-5090-laptop', 'name': 'NVIDIA GeForce RTX 5090 Laptop GPU',
        'aliases': ['RTX 5090 Laptop', 'RTX 5090 Laptop GPU', 'GeForce RTX 5090 Laptop GPU', 'NVIDIA GeForce RTX 5090 Laptop GPU'],
        'memory_gb_marketing': 24,
        'compute_capability': '12.0',
        'hbm_bandwidth_tbps': 0.896,
        'nvidia_smi_total_mib': 24463,
        'memory_source': "nvidia_smi_mib: not found (no trustworthy native-Linux CUDA total). Candidate, DOUBTFUL (docker on /home/erik, but 24462 ~= nvidia-smi 24463 suggests WSL/WDDM): index id 65747176234: 'Device 0: NVIDIA GeForce RTX 5090 Laptop GPU, compute capability 12.0, VRAM: 24462 MiB'",
        'sources': ["nvidia-smi: index id 65798008564: 'NVIDIA GeForce RTX 5090 Laptop GPU, 24463 MiB, driver 616.64'; index id 58359611471: 'NVIDIA GeForce RTX 5090 Laptop GPU, 24,463 MiB, driver 595.84'", "Windows llama.cpp: index id 67113753289: 'compute capability 12.0, VRAM: 24435 MiB'", 'index id 53257572530 (GPU_BANDWIDTH_DB, \'Sources: Wikipedia GeForce 40/30/50 series\'): \'"RTX 5090 Laptop GPU":    { vram: 24, bw: 896 }, // 256-bit at 28 Gbps\''],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-a2000-12gb', 'name': 'NVIDIA RTX A2000 12GB',
        'aliases': ['RTX A2000 12GB', 'NVIDIA RTX A2000 12GB'],
        'memory_gb_marketing': 12,
        'compute_capability': '8.6',
        'hbm_bandwidth_tbps': 0.288,
        'memory_total_bytes_reported': 12600737792,
        'memory_source': "torch (Ultralytics, Linux-6.5.0-1004-oem, torch-2.1.0+cu118): index id 33284414245 (also 33689917511, 33788934776, 34026452521): 'Ultralytics YOLOv8.0.200 🚀 Python-3.10.13 torch-2.1.0+cu118 CUDA:0 (NVIDIA RTX A2000 12GB, 12017MiB)'",
        'sources': ["nvidia-smi: index id 69453293498: 'Box: NVIDIA RTX A2000 12GB, 12282 MiB, 575.64.05 ... torch 2.8.0+cu128'", "bandwidth 288 GB/s (A2000 desktop, 192-bit GDDR6): https://www.tomshardware.fr/nvidia-lance-une-rtx-a2000-low-profile/ '6 Go de GDDR6 sur un bus de 192 bits ... bande passante mémoire de 288 Go/s' (12GB variant uses same bus/speed; not separately verified)", "CC 8.6: https://cpu-gpu.alldbin.com/graphics-card-comparison/GeForce-RTX-2060-TU104-and-RTX-A2000-comparison.html 'CUDA ... 8.6' (RTX A2000)", 'note: Only one torch capture (driver unknown, 2023). Torch total is 265 MiB below nvidia-smi.'],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-a2000-6gb', 'name': 'NVIDIA RTX A2000',
        'aliases': ['RTX A2000', 'NVIDIA RTX A2000', 'RTX A2000 6GB'],
        'memory_gb_marketing': 6,
        'compute_capability': '8.6',
        'hbm_bandwidth_tbps': 0.288,
        'nvidia_smi_total_mib': 6138,
        'memory_source': "nvidia_smi_mib: torch: not found. nvidia-smi only: index id 60291962202: '|   0  NVIDIA RTX A2000               On  |   00000000:A0:00.0 Off |                 Off* |' / '| 30%   47C    P2             32W /   70W |    1330MiB /   6138MiB |'",
        'sources': ["doubtful, unlabelled figure: index id 311512449 (github.com/fatihhbayramm/proxmox-ai-infrastructure README): 'Benchmark Results (RTX A2000, 5754MB VRAM)' (probably Ollama's free/available value, not a CUDA total)", "CUDA name is plain 'NVIDIA RTX A2000' (6GB card), e.g. index id 55760186853 test fixture 'NVIDIA RTX A2000, 12, 1024, 6138, 45, 18.42'", "bandwidth 288 GB/s: https://www.tomshardware.fr/nvidia-lance-une-rtx-a2000-low-profile/ '6 Go de GDDR6 sur un bus de 192 bits. Cela lui confère une bande passante mémoire de 288 Go/s'", 'CC 8.6: https://cpu-gpu.alldbin.com/graphics-card-comparison/GeForce-RTX-2060-TU104-and-RTX-A2000-comparison.html'],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-a4500', 'name': 'NVIDIA RTX A4500',
        'aliases': ['RTX A4500', 'NVIDIA RTX A4500'],
        'memory_gb_marketing': 20,
        'compute_capability': '8.6',
        'hbm_bandwidth_tbps': 0.64,
        'nvidia_smi_total_mib': 20470,
        'memory_source': 'nvidia_smi_mib: torch: not found (no Linux torch/vLLM/Ultralytics total for this card in the index). nvidia-smi (Linux, driver 575.57.08): index id 54795458331: \'"stdout": "NVIDIA RTX A4500, 20470 MiB, 575.57.08\\nNVIDIA RTX A4500, 20470 MiB, 575.57.08"\'',
        'sources': ["nvidia-smi also index id 68867180855: '**GPU**: NVIDIA RTX A4500, 20470 MiB, driver 580.159.03'", "rounded only (Linux container): index id 57991869222: '| Linux + NVIDIA Ampere | rented RTX A4500, 19.6 GB, sm_86, container |' (unit/source of 19.6 unclear)", "Windows WDDM (do not use): index id 70628818192: 'Hardware: NVIDIA RTX A4500, 19190 MiB VRAM, driver 596.86; Windows'", "bandwidth 640 GB/s: https://cputronic.com/gpu/compare/nvidia-rtx-a4500-vs-nvidia-a800-pcie-40-gb 'Higher Bandwidth: 1555 GB/s (640.0 GB/s vs 1555 GB/s)'; also index id 55758538890 '| RTX A4500 | 20 GB GDDR6 ECC | 640 GB/s |'", "CC 8.6: index id 57991869222 'rented RTX A4500, 19.6 GB, sm_86'", "note: The brief's example '20187MiB' was NOT found in the index; do not treat it as sourced."],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-pro-4000-blackwell', 'name': 'NVIDIA RTX PRO 4000 Blackwell',
        'aliases': ['RTX PRO 4000', 'RTX PRO 4000 Blackwell', 'NVIDIA RTX PRO 4000 Blackwell'],
        'memory_gb_marketing': 24,
        'compute_capability': '12.0',
        'hbm_bandwidth_tbps': 0.672,
        'nvidia_smi_total_mib': 24467,
        'memory_source': "nvidia_smi_mib: torch: not found. nvidia-smi: index id 71315649740: '| GPU | NVIDIA RTX PRO 4000 Blackwell, 24,467MiB |' (NVIDIA driver 580.173.02, PyTorch 2.10.0+cu128, vLLM 0.19.0)",
        'sources': ["nvidia-smi also index id 57391080903: '- GPU: NVIDIA RTX PRO 4000 Blackwell, 24,467 MiB VRAM;' and index id 61573653874: '(RTX PRO 4000 Blackwell, 24467 MiB vs 20475 MiB)'", "rounded only: index id 52564297359: 'Key benchmarks (NVIDIA RTX PRO 4000 Blackwell, 23.5 GiB VRAM)' (llama.cpp, source unclear); index id 56779062813: 'ComfyUI 0.26.2, PyTorch 2.10 cu130, NVIDIA RTX PRO 4000 Blackwell, 23.4 GB VRAM.'", "bandwidth 672 GB/s: index id 68637197327: '| Workstation | RTX PRO 4000 Blackwell SFF | GB205 / SM120 | 24 GB GDDR7 ECC | 672 GB/s |' (row shown is the SFF variant; the full-size card's row was not in the excerpt)", "CC 12.0: index id 55451134312: 'NVIDIA RTX PRO 4000 Blackwell, 24467, 595.58.03, 12.0, GPU-abc123' (nvidia-smi compute_cap field, in a test fixture)"],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-pro-4500-blackwell', 'name': 'NVIDIA RTX PRO 4500 Blackwell',
        'aliases': ['RTX PRO 4500', 'RTX PRO 4500 Blackwell', 'NVIDIA RTX PRO 4500 Blackwell'],
        'memory_gb_marketing': 32,
        'compute_capability': '12.0',
        'hbm_bandwidth_tbps': 0.896,
        'nvidia_smi_total_mib': 32623,
        'memory_source': "nvidia_smi_mib: torch: not found. nvidia-smi: index id 57746969535: '| GPU | NVIDIA RTX PRO 4500 Blackwell, 32 GB (32 623 MiB usable) |' with '| ECC | on |' and 'Driver | 610.57.04'",
        'sources': ['also index id 71493809967 (test fixture): "\'NVIDIA RTX PRO 4500 Blackwell, 32623, 580.126.16, 12.0\'"', "bandwidth 896 GB/s: index id 68637197327: '| Workstation | RTX PRO 4500 Blackwell | GB203 / SM120 | 32 GB GDDR7 ECC | 896 GB/s |'", "CC 12.0: index id 53977215629: 'NVIDIA RTX PRO 4500 Blackwell, 32 GB VRAM, compute capability 12.0 (sm_120)'", "a separate 'RTX PRO 4500 Blackwell Server Edition' SKU exists (RunPod id 'NVIDIA RTX PRO 4500 Blackwell Server Edition', index id 70195149891)"],
    },
    {
        **_NV_DEFAULTS, 'id': 'tesla-p100-pcie-16gb', 'name': 'Tesla P100-PCIE-16GB',
        'aliases': ['Tesla P100', 'Tesla P100-PCIE-16GB', 'P100 16GB PCIe', 'P100', 'NVIDIA Tesla P100-PCIE-16GB'],
        'memory_gb_marketing': 16,
        'compute_capability': '6.0',
        'hbm_bandwidth_tbps': 0.732,
        'memory_total_bytes_reported': 17059282944,
        'memory_source': "torch (Ultralytics on Kaggle, Linux, torch-2.1.2): index id 39778599802: 'Ultralytics YOLOv8.2.58 🚀 Python-3.10.13 torch-2.1.2 CUDA:0 (Tesla P100-PCIE-16GB, 16269MiB)'",
        'sources': ["other captures differ by driver: index id 48572795418 'YOLOv5 🚀 v7.0-321-g3742ab49 Python-3.10.13 torch-2.1.2 CUDA:0 (Tesla P100-PCIE-16GB, 16276MiB)'; index id 35501160568 'torch-1.7.0 CUDA:0 (Tesla P100-PCIE-16GB, 16281MiB)'; index id 117646278 'torch 1.9.0+cu102 CUDA:0 (Tesla P100-PCIE-16GB, 16280.875MB)'", "bandwidth 732.2 GB/s and CC 6.0: https://sysrqmts.com/ru/gpus/compare/nvidia-tesla-k40m-vs-nvidia-tesla-p100-pcie-16-gb '| Пропускная способность | 288.4 GB/s | 732.2 GB/s |' (P100 PCIe 16 GB column); CC 6.0 from https://sysrqmts.com/gpus/compare/nvidia-tesla-p100-sxm2-vs-nvidia-tesla-p40 'CUDA 6.0 6.1' (GP100)", 'note: Torch total ranges from 16269 to 16281 MiB across captures. The newest (16269) was chosen; the older drivers left more.'],
    },
    {
        **_NV_DEFAULTS, 'id': 'tesla-p40', 'name': 'Tesla P40',
        'aliases': ['Tesla P40', 'P40', 'NVIDIA Tesla P40'],
        'memory_gb_marketing': 24,
        'compute_capability': '6.1',
        'hbm_bandwidth_tbps': 0.347,
        'memory_total_bytes_reported': 24030342021,
        'memory_source': "torch OOM (4x P40, ECC evidently ON): https://github.com/LinkSoul-AI/Chinese-Llama-2-7b/issues/56: 'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 50.00 MiB (GPU 0; 22.38 GiB total capacity; 22.18 GiB already allocated; ...)'",
        'sources': ["nvidia-smi depends on ECC mode. ECC off: https://github.com/dphnAI/sonar/issues/522 '|   0  Tesla P40  ... |       0MiB /  24576MiB |' (driver 550.90.07). ECC on: index id 56851240350 'GPU: NVIDIA Tesla P40, 23,040 MiB reported'", "bandwidth 347.1 GB/s and CC 6.1: https://cpu-gpu.alldbin.com/videocard/Tesla-P40.html 'Memory bandwidth 347.1 GB/s' ... 'CUDA 6.1'", 'note: nvidia_smi_total_mib=23040 is the ECC-on value, chosen to match the ECC-on torch total of 22.38 GiB. With ECC off, nvidia-smi shows 24576 MiB and the torch total would be about 1.5 GiB higher; no ECC-off torch capture was found.'],
    },
]


# Added in stop 12 (a third search): Pascal, Kepler and Volta cards vLLM refuses or struggles on, more laptop parts.
EXTRA_GPUS += [
    {
        **_NV_DEFAULTS, 'id': 'gtx-1080', 'name': 'NVIDIA GeForce GTX 1080',
        'aliases': ['GTX 1080', 'GeForce GTX 1080', 'NVIDIA GeForce GTX 1080', '1080'],
        'memory_gb_marketing': 8,
        'compute_capability': '6.1',
        'hbm_bandwidth_tbps': None,
        'memory_total_bytes_reported': 8513585152,
        'memory_source': "torch (YOLOv5, torch 1.7.1+cu101, old stack): index id 33904007148: 'Using torch 1.7.1+cu101 CUDA:0 (GeForce GTX 1080, 8119.1875MB)'",
        'sources': ["CUDA totalGlobalMem via ArrayFire, Linux, driver 515.43.04: index id 25286726199: '[0] NVIDIA GeForce GTX 1080, 8120 MB, CUDA Compute 6.1' / '-1- NVIDIA GeForce GTX 1080, 8106 MB, CUDA Compute 6.1'", "nvidia-smi (WSL2, driver 582.28): index id 54941128549: '`nvidia-smi` reports `NVIDIA GeForce GTX 1080, 8192 MiB, driver 582.28, compute_cap 6.1`'", "CC: index id 61979684031: 'Your GPU (NVIDIA GeForce GTX 1080, compute capability 6.1)'", 'bandwidth: not found'],
    },
    {
        **_NV_DEFAULTS, 'id': 'gtx-1080-ti', 'name': 'NVIDIA GeForce GTX 1080 Ti',
        'aliases': ['GTX 1080 Ti', 'GeForce GTX 1080 Ti', 'NVIDIA GeForce GTX 1080 Ti', '1080 Ti'],
        'memory_gb_marketing': 11,
        'compute_capability': '6.1',
        'hbm_bandwidth_tbps': None,
        'memory_total_bytes_reported': 11714691072,
        'memory_source': "torch (Ultralytics, Linux /home/..., torch-2.5.1+cu124): index id 40724275414: 'Ultralytics 8.3.36 🚀 Python-3.9.20 torch-2.5.1+cu124 CUDA:0 (NVIDIA GeForce GTX 1080 Ti, 11172MiB)' (CUDA:3 of same box shows 11169MiB)",
        'sources': ["older stack: index id 6027193912: 'YOLOv5 🚀 2023-3-22 Python-3.7.15 torch-1.12.1+cu116 CUDA:0 (NVIDIA GeForce GTX 1080 Ti, 11177MiB)'", "Windows (not used): index id 29405583513: 'torch-2.0.0+cu118 CUDA:0 (NVIDIA GeForce GTX 1080 Ti, 11264MiB)' with yolo\\engine path", "CC: index id 41707302545: '# 61 - Pascal (Nvidia TITAN Xp, Titan X, GeForce GTX 1080 Ti, GTX 1080, ...)'", 'bandwidth: not found'],
    },
    {
        **_NV_DEFAULTS, 'id': 'quadro-rtx-6000', 'name': 'Quadro RTX 6000',
        'aliases': ['Quadro RTX 6000', 'NVIDIA Quadro RTX 6000'],
        'memory_gb_marketing': 24,
        'compute_capability': '7.5',
        'hbm_bandwidth_tbps': 0.672,
        'nvidia_smi_total_mib': 24576,
        'memory_source': "nvidia_smi_mib: not found (no torch/vLLM/llama.cpp total for this card located). nvidia-smi: index id 43626963079: 'NVIDIA-SMI 550.54.15 ... Quadro RTX 6000 ... 0MiB /  24576MiB'",
        'sources': ["nvidia-smi older driver: index id 18678160806: 'Quadro RTX 6000     Off ... 0MiB / 24220MiB'", "DOUBTFUL, unknown tool (maybe torch): index id 43626963079: 'Quadro RTX 6000, 24212MiB' (same doc also shows nvidia-smi 24576MiB, driver 550.54.15)", "nvidia-smi: index id 24656114599: 'Quadro RTX 6000, 24576 MiB' (driver 510.73.08)", "CC: index id 39024036230: 'StreamExecutor device (0): Quadro RTX 6000, Compute Capability 7.5'", "bandwidth: index id 55855326545: 'RTX6000_PEAK_BW_GBPS  = 672.0'"],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-2000-ada-laptop', 'name': 'NVIDIA RTX 2000 Ada Generation Laptop GPU',
        'aliases': ['RTX 2000 Ada Laptop', 'RTX 2000 Ada Generation Laptop GPU', 'RTX 2000 Ada Mobile', 'NVIDIA RTX 2000 Ada Generation Laptop GPU'],
        'memory_gb_marketing': 8,
        'compute_capability': '8.9',
        'hbm_bandwidth_tbps': None,
        'nvidia_smi_total_mib': 8188,
        'memory_source': "nvidia_smi_mib: not found (torch/CUDA total). nvidia-smi-style, Linux driver 580.159.04: index id 62463576853: 'GPU: NVIDIA RTX 2000 Ada Generation Laptop GPU, 8188 MiB'",
        'sources': ["nvidia-smi csv (Windows, driver 610.88): index id 65945435476: 'NVIDIA RTX 2000 Ada Generation Laptop GPU, 610.88,          8188 MiB'", "CC: index id 52564529294: 'NVIDIA RTX 2000 Ada Generation Laptop GPU, 582.41, 8.9, 8188, ...'", 'bandwidth: not found'],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-3050-laptop', 'name': 'NVIDIA GeForce RTX 3050 Laptop GPU',
        'aliases': ['RTX 3050 Laptop GPU', 'RTX 3050 Laptop', 'RTX 3050 Mobile', 'GeForce RTX 3050 Laptop GPU', 'NVIDIA GeForce RTX 3050 Laptop GPU'],
        'memory_gb_marketing': 4,
        'compute_capability': '8.6',
        'hbm_bandwidth_tbps': None,
        'memory_total_bytes_reported': 3953393664,
        'memory_source': "torch (torch 2.12.1+cu130, Python 3.12.3; not WSL-like): index id 57887449816: 'GPU: NVIDIA GeForce RTX 3050 Laptop GPU, 3953393664 bytes (~3.68 GiB) VRAM'",
        'sources': ["newer torch, Linux Arch: index id 71453814404: 'torch 2.14.0+cu130 ... Linux-7.1.5-arch1-2-x86_64 ... GPU: NVIDIA GeForce RTX 3050 Laptop GPU, 3759 MiB'", "hashcat Linux CUDA 12.4: index id 62786338594: 'Device #01: NVIDIA GeForce RTX 3050 Laptop GPU, 3814/3894 MB, 16MCU'", "Windows torch (not used): index id 52449417005: 'torch-2.7.1+cu118 CUDA:0 (NVIDIA GeForce RTX 3050 Laptop GPU, 4096MiB)'", "CC: index id 53893285098: 'Device 0: NVIDIA GeForce RTX 3050 Laptop GPU, compute capability 8.6, VMM: yes'", 'bandwidth: not found'],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-3060-laptop', 'name': 'NVIDIA GeForce RTX 3060 Laptop GPU',
        'aliases': ['RTX 3060 Laptop GPU', 'RTX 3060 Laptop', 'RTX 3060 Mobile', 'GeForce RTX 3060 Laptop GPU', 'NVIDIA GeForce RTX 3060 Laptop GPU'],
        'memory_gb_marketing': 6,
        'compute_capability': '8.6',
        'hbm_bandwidth_tbps': None,
        'memory_total_bytes_reported': 6234832896,
        'memory_source': "CUDA total via hashcat (cuDeviceTotalMem, Linux root shell, CUDA 11.4): index id 40846825557: '* Device #1: NVIDIA GeForce RTX 3060 Laptop GPU, 5833/5946 MB, 30MCU'",
        'sources': ["index id 61357538233: 'RTX 3060 Laptop GPU, 5806 MiB total' (tool unknown, doubtful)", "Windows torch (not used): index id 5659922403: 'CUDA:0 (NVIDIA GeForce RTX 3060 Laptop GPU, 6144 MiB)'", "nvidia-smi (Windows): index id 56825885759: 'NVIDIA GeForce RTX 3060 Laptop GPU, 592.27, 6144 MiB'", "CC: index id 68315850538: 'Device 0: NVIDIA GeForce RTX 3060 Laptop GPU, compute capability 8.6, VMM: yes, VRAM: 6143 MiB' (Windows)", 'bandwidth: not found'],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-5000-ada-laptop', 'name': 'NVIDIA RTX 5000 Ada Generation Laptop GPU',
        'aliases': ['RTX 5000 Ada Laptop', 'RTX 5000 Ada Generation Laptop GPU', 'RTX 5000 Ada Mobile', 'NVIDIA RTX 5000 Ada Generation Laptop GPU'],
        'memory_gb_marketing': 16,
        'compute_capability': '8.9',
        'hbm_bandwidth_tbps': None,
        'nvidia_smi_total_mib': 16376,
        'memory_source': "nvidia_smi_mib: not found (torch/CUDA total). nvidia-smi: index id 60894202974: 'RTX 5000 Ada Generation Laptop GPU, 16376 MiB total VRAM ... (measured via `nvidia-smi` during the passing run)'",
        'sources': ["WSL2 with ECC apparently on (16376*15/16): index id 69304581498: 'GPU     NVIDIA RTX 5000 Ada Generation Laptop GPU, 15352 MiB, compute capability 8.9' / 'host    g++ 11.4.0 (Ubuntu 22.04, WSL2)'", "Ollama/llama.cpp free (not total): index id 36670199026: 'using device CUDA0 (NVIDIA RTX 5000 Ada Generation Laptop GPU) - 15046 MiB free'", 'CC: index id 69304581498 (line above)', 'bandwidth: not found'],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-5080-laptop', 'name': 'NVIDIA GeForce RTX 5080 Laptop GPU',
        'aliases': ['RTX 5080 Laptop GPU', 'RTX 5080 Laptop', 'RTX 5080 Mobile', 'GeForce RTX 5080 Laptop GPU', 'NVIDIA GeForce RTX 5080 Laptop GPU'],
        'memory_gb_marketing': 16,
        'compute_capability': '12.0',
        'hbm_bandwidth_tbps': None,
        'nvidia_smi_total_mib': 16303,
        'memory_source': "nvidia_smi_mib: not found for Linux. Windows torch (= nvidia-smi): index id 56949010090: 'YOLOv5  2885cb4 Python-3.12.13 torch-2.7.1+cu128 CUDA:0 (NVIDIA GeForce RTX 5080 Laptop GPU, 16303MiB)'",
        'sources': ["Linux (driver 615.71.09): index id 69618541791: 'GPU: NVIDIA GeForce RTX 5080 Laptop GPU, compute capability 12.0, 16303 MiB.'", "nvidia-smi csv: index id 62005620721: 'NVIDIA GeForce RTX 5080 Laptop GPU, 16303, 12.0, 610.88'", "DOUBTFUL, OS/tool unknown: index id 59852847278: 'Device | CUDA (NVIDIA RTX 5080 Laptop GPU, 15.48 GB)'", 'bandwidth: not found'],
    },
    {
        **_NV_DEFAULTS, 'id': 'rtx-a5000-laptop', 'name': 'NVIDIA RTX A5000 Laptop GPU',
        'aliases': ['RTX A5000 Laptop GPU', 'RTX A5000 Laptop', 'RTX A5000 Mobile', 'NVIDIA RTX A5000 Laptop GPU'],
        'memory_gb_marketing': 16,
        'compute_capability': '8.6',
        'hbm_bandwidth_tbps': None,
        'memory_total_bytes_reported': 16760438784,
        'memory_source': "CUDA totalGlobalMem via HOOMD-blue device description, Linux driver 595.71.05: index id 65982753503: '`hoomd.device.GPU()` | instantiates: 48 SM_8.6, 15984 MiB' (nvidia-smi row: 'RTX A5000 Laptop GPU, 16 GB, driver 595.71.05, CUDA 13.2')",
        'sources': ["CC: same line 'SM_8.6'", 'bandwidth: not found'],
    },
    {
        **_NV_DEFAULTS, 'id': 'tesla-k80', 'name': 'Tesla K80',
        'aliases': ['Tesla K80', 'K80', 'NVIDIA Tesla K80'],
        'memory_gb_marketing': 12,
        'compute_capability': '3.7',
        'hbm_bandwidth_tbps': None,
        'memory_total_bytes_reported': 11996758016,
        'memory_source': "torch (YOLOv5, torch 1.10.0+cu111, per GPU die): index id 1501165343: 'YOLOv5 🚀 v6.0-113-g5ca5dd4 torch 1.10.0+cu111 CUDA:0 (Tesla K80, 11441MiB)'",
        'sources': ["CC: index id 53751737511: 'Tesla K80 (compute capability 3.7)'", 'bandwidth: not found'],
    },
    {
        **_NV_DEFAULTS, 'id': 'titan-v', 'name': 'NVIDIA TITAN V',
        'aliases': ['TITAN V', 'Titan V', 'NVIDIA TITAN V'],
        'memory_gb_marketing': 12,
        'compute_capability': '7.0',
        'hbm_bandwidth_tbps': 0.6528,
        'memory_total_bytes_reported': 12650414080,
        'memory_source': "torch (YOLOR, Linux /home/taiyaki, torch 1.12.0+cu113): index id 47757230308: 'YOLOR ? v0.1-126-g84932d7 torch 1.12.0+cu113 CUDA:0 (NVIDIA TITAN V, 12064.375MB)' (CUDA:1 on same box: 12066.875MB)",
        'sources': ["index id 20094681542: 'GPU 0: NVIDIA TITAN V, 12066 MiB total, 11472 MiB used, 594 MiB free' (tool unknown)", "nvidia-smi: hershey890/cs259 README.md: 'NVIDIA TITAN V ... 0MiB / 12288MiB' (driver 515.65.01)", "CC + bandwidth: index id 63416119124: 'Appendix A: Hardware Parameters (NVIDIA TITAN V, Compute Capability 7.0)' / '| DRAM bandwidth | 652.8 GB/s | HBM2 ...'"],
    },
]

# Stop 13: cards a user in late 2026 types that kvplan refused. RDNA4 Radeons (gfx1201), the 8/16 GB Jetson Orin
# modules (compute capability 8.7, memory shared with the CPU) and AMD Strix Halo (gfx1151, memory shared with the CPU).
# A Radeon's total is ROCm's: rocminfo's GPU pool 'Segment: GLOBAL; FLAGS: COARSE GRAINED' is torch's total_memory (the
# RX 7900 XTX: 25149440 KB = 24560 MiB both ways; the RX 9070 XT below: 16695296 KB = 16304 MiB both ways), and vLLM's
# total on ROCm is torch's. A Jetson's is CUDA's (deviceQuery / torch) under JetPack 6 (L4T r36, CUDA 12.x): vLLM runs
# on Orin only through builds made for JetPack 6 (dustynv/vllm:*-r36.x images, https://github.com/dusty-nv/
# jetson-containers; vLLM issue #8708 comment of 2024-10-18; vLLM PR #7293 asked for 8.7 in vLLM's own build list), and
# the total depends on the JetPack release (its carve-outs), so another JetPack's figure is a source, not the total.
# vLLM's gates: kvplan records none by gfx target (versions.py / kvplan.plan key ROCm on the vendor alone) and none for
# Jetson beyond compute capability 8.7's integrated memory (versions.INTEGRATED_MEMORY_CC); what vLLM's documentation
# says is in each entry's sources, and no gate is added here.
_ROCM_DOCS = ("vLLM's ROCm requirements list 'Radeon RX 9000 series (gfx1200/1201)' and 'Ryzen AI MAX / AI 300 Series "
              "(gfx1151/1150)', the latter 'requires ROCm 7.0.2 or above' (https://docs.vllm.ai/en/v0.14.0/getting_started/"
              "installation/gpu/ and later docs, e.g. docs/getting_started/installation/gpu.rocm.inc.md on main); the "
              "first release that lists them is not pinned down here, and kvplan applies no gfx gate")
_JETSON_VLLM = ("vLLM on Orin: builds for JetPack 6 from jetson-containers (dustynv/vllm images; vLLM issue #8708; "
                "https://github.com/dusty-nv/jetson-containers/issues/1568: 'Jetson Orin Nano 8GB. L4T 36.4.7', image "
                "'dustynv/vllm:0.8.6-r36.4.0-cu128-24.04'); vLLM publishes no sm_87 wheel (vLLM PR #7293, superseded "
                "by #9735); kvplan applies compute capability 8.7's integrated-memory rules (versions.INTEGRATED_MEMORY_CC)")
_ORIN_BW = (_FOUND + "spec table (index id 57985154165): '| Orin NX 16GB | 102.4 GB/s |', '| Orin NX 8GB | 102.4 GB/s |', "
            "'| Orin Nano 8GB | 68 GB/s |' (with '| AGX Orin 64GB | 204.8 GB/s |', the catalog's AGX Orin figure)")
_GFX_TABLE = ("https://github.com/ROCm/legacy-rocm-build/blob/089d7513c55fc7b6edb2a75b83cb40ca883a0ec2/docs/reference/"
              "gpu-arch-specs.rst")
EXTRA_GPUS += [
    {
        **_NV_DEFAULTS, "vendor": 'AMD', "id": 'radeon-ai-pro-r9700', "name": 'AMD Radeon AI PRO R9700',
        # vLLM's kernel-config names spell it 'AMD_Radeon_R9700' (device_name=AMD_Radeon_R9700 in its fp8_utils warnings,
        # https://github.com/kyuz0/amd-r9700-vllm-toolboxes/issues/4)
        "aliases": ['Radeon AI PRO R9700', 'AI PRO R9700', 'R9700', 'AMD Radeon R9700', 'Radeon R9700',
                    'AMD Radeon AI PRO R9700 32GB'],
        "memory_gb_marketing": 32, "compute_capability": None, "hbm_bandwidth_tbps": 0.64,
        'memory_total_bytes_reported': 33406976 * 1024,
        "memory_source": "rocminfo (ROCm 7.1.1, three R9700): https://github.com/ROCm/ROCm/issues/5706: 'Name:                    "
                         "gfx1201 ... Marketing Name:          AMD Radeon AI PRO R9700 ... Pool 1 / Segment: GLOBAL; FLAGS: "
                         "COARSE GRAINED / Size:                    33406976(0x1fdc000) KB' (= 32624 MiB = 31.86 GiB)",
        "sources": [_FOUND + "vLLM on 8 x Navi48 (gfx12, 'Serve DeepSeek-V4-Flash on Navi48 with TP=8', index id 57983616173):"
                    " 'Free memory on device cuda:X (10/31.86 GiB)' (31.86 GiB = 32624 MiB, the rocminfo pool; the 16 GB "
                    "Navi48 cards report 16304 MiB)",
                    _FOUND + "rocm-smi era host line (index id 65721263631): 'AMD Radeon AI PRO R9700, 32624 MiB'",
                    "gfx1201: " + _GFX_TABLE + " '- Radeon AI PRO R9700 / - RDNA4 / - gfx1201 / - 32' (VRAM GiB)",
                    _FOUND + "bandwidth (index id 52286037764): '| Radeon AI PRO R9700 | 32 GB GDDR6 | 640 GB/s | ... RDNA 4'; "
                    "32 GB: https://www.amd.com/en/products/graphics/workstations/radeon-ai-pro/ai-9000-series/"
                    "amd-radeon-ai-pro-r9700.html (cited by ROCm PR #5203, which corrected ROCm's table from 16 to 32 GiB)",
                    _ROCM_DOCS],
    },
    {
        **_NV_DEFAULTS, "vendor": 'AMD', "id": 'rx-9070-xt', "name": 'AMD Radeon RX 9070 XT',
        "aliases": ['Radeon RX 9070 XT', 'RX 9070 XT', '9070 XT', '9070XT', 'AMD Radeon RX 9070XT', 'RX 9070 XT 16GB'],
        "memory_gb_marketing": 16, "compute_capability": None, "hbm_bandwidth_tbps": 0.64,
        'memory_total_bytes_reported': 16695296 * 1024,
        "memory_source": "rocminfo (ROCm 6.4.1): https://github.com/ROCm/ROCm/issues/5388: 'Name:                    gfx1201 "
                         "... Marketing Name:          AMD Radeon RX 9070 XT ... Pool 1 / Segment: GLOBAL; FLAGS: COARSE "
                         "GRAINED / Size:                    16695296(0xfec000) KB' (= 16304 MiB)",
        "sources": ["torch on ROCm 6.4: https://github.com/ROCm/ROCm/issues/5040 (comment of 2025-07-19): "
                    "\"_CudaDeviceProperties(name='AMD Radeon RX 9070 XT', major=12, minor=0, gcnArchName='gfx1201', "
                    "total_memory=16304MB, multi_processor_count=32, ...)\" (16304 MiB, the rocminfo pool)",
                    _FOUND + "Ultralytics on ROCm torch (index id 70686882235): 'CUDA:0 (AMD Radeon RX 9070 XT, 16304MiB)'",
                    "gfx1201: " + _GFX_TABLE + " '- Radeon RX 9070 XT / - RDNA4 / - gfx1201 / - 16'",
                    "bandwidth: https://multiplayer.it/notizie/amd-radeon-rx-9070-xt-rx-9070-specifiche.html (RX 9070 XT and "
                    "RX 9070: '16GB di memoria GDDR6 con clock a 20 Gbps e un bus di memoria a 256 bit, per una larghezza "
                    "di banda totale di 640 GB/s')",
                    _ROCM_DOCS],
    },
    {
        **_NV_DEFAULTS, "vendor": 'AMD', "id": 'rx-9070', "name": 'AMD Radeon RX 9070',
        "aliases": ['Radeon RX 9070', 'RX 9070', '9070', 'RX 9070 16GB'],
        "memory_gb_marketing": 16, "compute_capability": None, "hbm_bandwidth_tbps": 0.64,
        'memory_total_bytes_reported': 16304 * MIB,
        "memory_source": _FOUND + "a Linux (amdgpu) host's notes, index id 58784575100: 'MEASURED ON DESK 2026-09-02 (RX 9070, "
                         "16304 MiB)'; the same 16304 MiB as the RX 9070 XT's rocminfo pool and torch total_memory (same "
                         "Navi 48 board memory, 16 GB GDDR6)",
        "sources": [_FOUND + "Windows engine notes (index id 70452487546): 'AMD Radeon RX 9070, 16 GB (gfx1201; engine sees "
                    "16,304 MiB, Windows budgets 15,447 MiB to the process)'",
                    _FOUND + "rocm-smi --showproductname (index id 61200761709): 'Card Series:          AMD Radeon RX 9070' "
                    "... 'GFX Version:          gfx1201'",
                    "gfx1201: " + _GFX_TABLE + " '- Radeon RX 9070 / - RDNA4 / - gfx1201 / - 16'",
                    "bandwidth: https://multiplayer.it/notizie/amd-radeon-rx-9070-xt-rx-9070-specifiche.html (both cards: "
                    "256-bit GDDR6 at 20 Gbps, 640 GB/s)",
                    _ROCM_DOCS],
    },
    {
        **_NV_DEFAULTS, "id": 'jetson-orin-nx-16gb', "name": 'NVIDIA Jetson Orin NX 16GB',
        # deviceQuery and torch name every Orin module 'Orin': that name stays the AGX Orin's concern (OTHER_MEMORY_GB)
        "aliases": ['Jetson Orin NX 16GB', 'NVIDIA Jetson Orin NX 16GB', 'Orin NX 16GB', 'Jetson Orin NX'],
        "memory_gb_marketing": 16, "compute_capability": '8.7', "hbm_bandwidth_tbps": 0.1024,
        'memory_total_bytes_reported': 16416792576,
        "memory_source": "deviceQuery under JetPack 6.2.1 (CUDA 12.6), public GitHub file found by exact-string search (index "
                         "id 12612052448, 'A Guide to Jetson Orin NX Setup'): 'Device 0: \"Orin\" ... CUDA Capability "
                         "Major/Minor version number:    8.7 / Total amount of global memory:                 15656 MBytes "
                         "(16416792576 bytes) / (008) Multiprocessors, (128) CUDA Cores/MP:    1024 CUDA Cores'",
        "sources": ['UNIFIED MEMORY: CUDA total = the 16 GB LPDDR5 Linux leaves after the JetPack carve-outs, shared with the '
                    'CPU/OS; torch.cuda.mem_get_info()[1] is the same total', 
                    _FOUND + "torch 2.8.0 under JetPack 6 (TensorRT 10.3.0, index id 66459513854): 'CUDA:0 (Orin, 15655MiB)'",
                    _FOUND + "JetPack 5 (CUDA 11.4) on an Orin NX 16GB (index id 71210151957, 'I tested on Jetson Orin NX "
                    "16GB'): 'Total amount of global memory:                 15388 MBytes (16136011776 bytes)': 0.26 GiB "
                    "less than JetPack 6's, which vLLM's Orin builds need",
                    _ORIN_BW, _JETSON_VLLM],
    },
    {
        **_NV_DEFAULTS, "id": 'jetson-orin-nx-8gb', "name": 'NVIDIA Jetson Orin NX 8GB',
        "aliases": ['Jetson Orin NX 8GB', 'NVIDIA Jetson Orin NX 8GB', 'Orin NX 8GB'],
        "memory_gb_marketing": 8, "compute_capability": '8.7', "hbm_bandwidth_tbps": 0.1024,
        "sources": ['UNIFIED MEMORY (8 GB LPDDR5 shared with the CPU/OS)',
                    "module SKU 900-13767-0010-001 'Jetson Orin NX 8GB' (" + _FOUND + "index id 71328906840); BOARDSKU "
                    "'0001 - Jetson Orin NX 8GB' (index id 33397119255, citing https://docs.nvidia.com/jetson/archives/"
                    "r36.4.4/DeveloperGuide/index.html#devices-supported-by-this-document)",
                    _ORIN_BW, _JETSON_VLLM],
    },
    {
        **_NV_DEFAULTS, "id": 'jetson-orin-nano-8gb', "name": 'NVIDIA Jetson Orin Nano 8GB',
        # no size-less alias ('Jetson Orin Nano', its developer kits): the name is also the 4 GB module's, so a bare
        # name is asked about (OTHER_MEMORY_GB), as the AGX Orin's is
        "aliases": ['Jetson Orin Nano 8GB', 'NVIDIA Jetson Orin Nano 8GB', 'Orin Nano 8GB', 'Jetson Orin Nano Super 8GB'],
        "memory_gb_marketing": 8, "compute_capability": '8.7', "hbm_bandwidth_tbps": 0.068,
        'memory_total_bytes_reported': 7620 * MIB,
        "memory_source": _FOUND + "a JetPack 6.2.2 setup guide for the 'Jetson Orin Nano Developer Kit (8GB)' (index id "
                         "53125500447): deviceQuery 'Device 0: \"Orin\" / CUDA Driver Version / Runtime Version          "
                         "12.6 / 12.6 / CUDA Capability Major/Minor version number:    8.7 / Total amount of global memory:"
                         "                 7620 MBytes', tegrastats 'RAM 2840/7620MB' (MiB; the bytes are 7620 x 1048576)",
        "sources": ['UNIFIED MEMORY (8 GB LPDDR5 shared with the CPU/OS); the dev kits\' MAXN SUPER mode (JetPack 6.2) '
                    'raises the memory clock, which the bandwidth field does not follow',
                    _FOUND + "torch builds for JetPack 6: 'Ultralytics 8.3.148 ... torch-2.5.0a0+872d972e41.nv24.08 CUDA:0 "
                    "(Orin, 7620MiB)' (index id 10974585025), 'torch-2.3.0 CUDA:0 (Orin, 7620MiB)' with '6 CPUs, 7.4 GB "
                    "RAM' (index id 55554792086)",
                    _FOUND + "other stacks: Ubuntu 22.04 with Canonical's r36.4 Tegra drivers, deviceQuery '7618 MBytes "
                    "(7987728384 bytes)' (index id 3548449959); a CUDA 13.2 torch on an Orin Nano, 'torch-2.13.0+cu132 "
                    "CUDA:0 (Orin, 7546MiB)' (index id 63090704347): the total moves with the software release",
                    _ORIN_BW, _JETSON_VLLM],
    },
    {
        **_NV_DEFAULTS, "vendor": 'AMD', "id": 'strix-halo', "name": 'AMD Radeon 8060S Graphics',
        "aliases": ['Strix Halo', 'AMD Strix Halo', 'Radeon 8060S', 'AMD Radeon 8060S', 'Radeon 8060S Graphics',
                    'AMD Radeon(TM) 8060S Graphics', 'Ryzen AI Max+ 395', 'AMD Ryzen AI Max+ 395', 'Ryzen AI Max 395',
                    'AMD RYZEN AI MAX+ 395 w/ Radeon 8060S'],
        "memory_gb_marketing": 128, "compute_capability": None, "hbm_bandwidth_tbps": 0.256,
        "sources": ['UNIFIED MEMORY: up to 128 GB LPDDR5X shared with the CPU; the GPU\'s share is set per machine (the BIOS '
                    'UMA carve-out, the kernel\'s GTT / ttm.pages_limit), so no catalog total is kept: --gpu-gib gives it',
                    _FOUND + "torch's total on gfx1151 across machines: \"_CudaDeviceProperties(name='AMD Radeon Graphics', "
                    "major=11, minor=5, gcnArchName='gfx1151', total_memory=104906MB\" (index id 43463901779), "
                    "'total_memory=11828MB' (index id 49569157774), \"name='Radeon 8060S Graphics' ... total_memory=64038MB\" "
                    "(index id 56824795797), \"name='AMD Radeon(TM) 8060S Graphics' ... total_memory=102129MB\" with "
                    "'torch.cuda.mem_get_info(0) -> [106927665152, 107090132992]' (index id 67325041134), 'total_memory="
                    "80065MB' on Windows (index id 70803967867)",
                    "https://github.com/ROCm/ROCm/issues/5444 (vLLM on Strix Halo, ROCm 7.x): torch's total_memory 15.49 GiB "
                    "with a small carve-out until a HIP shim reported the GTT pool (88.0 GiB)",
                    "https://github.com/vllm-project/vllm-omni/pull/6236: 'AMD Ryzen AI Max+ 395 / Radeon 8060S (gfx1151), "
                    "with 128 GiB unified memory configured as 96 GiB VRAM'",
                    _FOUND + "bandwidth (index id 56453921007, 'AMD Strix Halo (Ryzen AI Max+ 395)'): '| LPDDR5X-8000, "
                    "256-bit | 256 GB/s theoretical |'",
                    _ROCM_DOCS],
    },
]
# What a card with no catalog total says when named without --gpu-gib (resolve._find_gpu asks for the total).
NO_TOTAL_REASONS = {
    "jetson-orin-nx-8gb": ("no public deviceQuery / torch total was found for the 8 GB Orin NX module; CUDA's total on an "
                           "Orin is the LPDDR5 Linux leaves after JetPack's carve-outs (the Orin Nano 8GB reports 7620 MiB "
                           "under JetPack 6, the Orin NX 16GB 15656), a figure of the module and its JetPack"),
    "strix-halo": ("the Radeon 8060S shares the machine's memory, and the share ROCm reports is set per machine (the BIOS "
                   "UMA carve-out and the kernel's GTT / ttm.pages_limit): public torch totals on gfx1151 run from 11828 "
                   "to 104906 MiB"),
}
# Parts whose memory is the system's though no compute capability says so (an AMD APU has none; Jetson and GB10 parts
# are told by theirs, versions.INTEGRATED_MEMORY_CC).
INTEGRATED_MEMORY_IDS = {"strix-halo"}


EXTRA_ALIASES = {
    "h200": (["H200 NVL", "NVIDIA H200 NVL"], "nvidia-smi 'NVIDIA H200 NVL, 143771 MiB' = the H200 SXM's 143771 MiB (public "
             "GitHub files found by exact-string search)"),
    "rtx-pro-6000-blackwell": (["RTX PRO 6000 Blackwell Max-Q", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"],
                               "nvidia-smi lists the Max-Q and the Workstation Edition at the same 97887 MiB (public GitHub "
                               "file found by exact-string search); both GB202 with 96 GB GDDR7"),
    "mi300x": (["MI300X VF", "AMD Instinct MI300X VF", "AMD Instinct MI300X OAM"], "the SR-IOV virtual function of an "
               "MI300X (Azure): sglang check_env 'AMD Instinct MI300X VF'; it reports 196288 MiB, 0.29 GiB below the "
               "bare-metal total. 'AMD Instinct MI300X OAM': the product name an MI300X (an OAM module) gives in sysfs, "
               "which AMD's node labeller writes amd.com/gpu.product-name=AMD_Instinct_MI300X_OAM "
               "(https://github.com/ROCm/k8s-device-plugin/blob/ed7646843003e8f0b6a0630346f01bb4d1ecff2e/docs/user-guide/"
               "installation.md)"),
    "mi250x": (["MI250", "AMD Instinct MI250"], "https://github.com/ROCm/rocm_smi_lib/issues/160: rocminfo names both 'AMD "
               "Instinct MI250X/MI250'; 64 GB HBM2e per GCD on both"),
    "a100-80gb-pcie": (["A800 80GB PCIe", "NVIDIA A800 80GB PCIe", "NVIDIA A800-PCIE-80GB"],
                       "torch 'CUDA:0 (NVIDIA A800 80GB PCIe, 81051MiB)' = the A100 80GB PCIe's 79.15 GiB; "
                       "https://github.com/Datura-ai/lium-io/pull/1199: same GA100 and 80 GB HBM2e, NVLink cut"),
}

# Names a card is also sold under with other memory, which the catalog has no total for: a bare name is asked about.
OTHER_MEMORY_GB = {
    "jetson-agx-orin-64gb": ([32], _FOUND + "spec table of the AGX Orin 64GB and 32GB modules ('| 内存带宽 | 204.8 GB/s | "
                             "204.8 GB/s |'); deviceQuery names every Orin module 'Orin', so that name is not an alias"),
    "jetson-orin-nx-16gb": ([8], "the Orin NX is also the 8 GB module (SKU 900-13767-0010-001, catalog jetson-orin-nx-8gb), "
                            "whose total no public source gives: a bare 'Orin NX' is asked about"),
    "jetson-orin-nano-8gb": ([4], _FOUND + "module SKUs (index id 71328906840) list 'Jetson Orin Nano 4GB' beside the 8GB; "
                             "BOARDSKU '0004 - Jetson Orin Nano 4GB' (index id 33397119255)"),
    "rtx-5060ti-16gb": ([8], _FOUND + "retail listing 'MSI GeForce RTX 5060 Ti 8GB VENTUS 2X OC PLUS'"),
    "rtx-3080-laptop-16gb": ([8], _FOUND + "'_CudaDeviceProperties(name='NVIDIA GeForce RTX 3080 Laptop GPU', major=8, "
                             "minor=6, total_memory=8191MB' (index id 39896093339): the same name with 8 GB"),
    "rtx-2060": ([12], _FOUND + "llama.cpp 'Device 0: NVIDIA GeForce RTX 2060, compute capability 7.5, VMM: yes, VRAM: "
                 "11833 MiB' (index id 55045396669): the 12 GB card reports the same name"),
}

# GB10's total solved from four vLLM 0.25.1 startups' "CUDA graph memory profiling is enabled ... --gpu-memory-utilization=u
# is equivalent to ... =e" lines: estimate = (u - e) x total gives 121.1, 122.4, 122.2 and 121.3 GiB (mean 121.7;
# log_excerpts.jsonl, https://github.com/eugr/spark-vllm-docker issues).
EXTRA_TOTALS = {"gb10": (121.7, "solved from four vLLM 0.25.1 DGX Spark logs (CUDA-graph utilization-equivalence lines)"),
                'rtx-5070-ti': (15.47, 'https://github.com/stevenvo780/jarvisIAV2/blob/a52c045db28bd7c8fe31798974de27c109f142d2/WEB_TEST_RESULTS.md: "ValueError: Free memory on device (0.9/15.47 GiB) on startup is less than desired GPU memory utilization  [same report: \'| **GPU utilizada** | GPU 0 (RTX 5070 Ti 16GB) |\', vLLM engine on GPU 0]"'),
                'mi355x': (287.98, 'public GitHub file found by exact-string search (the index returns no repository/path): \'# at worker init with "Free memory on device cuda:N (272.0-272.4/287.98 GiB) on\\n# startup is less than desired GPU memory utilization" -- these mi355x-amds\\n# nodes free only ~272 of 288 GiB and 0.95 asks for ~273.6. Know\''),
                "rtx-3060": (11.63, "https://github.com/vllm-project/vllm/issues/27934 ('Free memory on device (6.44/11.63 GiB)')"),
                # torch's "total capacity" in an OOM raised inside a vLLM worker: the same cudaMemGetInfo total vLLM uses.
                "rtx-5080": (15.48, "https://github.com/vllm-project/vllm/issues/14452 (torch OOM in a vLLM worker: "
                                    "'GPU 0 has a total capacity of 15.48 GiB')"),
                "rtx-2080ti": (10.57, "https://github.com/vllm-project/vllm/issues/19445 (torch OOM under vLLM v0.13.0: "
                                      "'GPU 0 has a total capacity of 10.57 GiB')")}

# nvidia-smi's memory.total (MiB) of a card, with its source. It is the total CUDA, and so vLLM, reports under WSL2 (the
# Windows driver's WDDM model), where native Linux reports 0.25-0.75 GiB less (gpu-facts.md section 1): vLLM under
# WSL2 printed 'Free memory on device (22.45/23.99 GiB)' on an RTX 4090 whose nvidia-smi shows 24564 MiB, 30.12/31.84
# GiB on an RTX 5090 (32607 MiB) and 6.93/8.0 GiB on an RTX 4060 Laptop (8188 MiB); a WSL2 torch total_memory=24563MB
# on an RTX A5000 (24564 MiB). `kvplan fit --wsl2` plans a card with it (resolve.wsl2_gpu). The shared rows carry it
# with their own sources (build_gpus reads them); the extra cards' figures and sources are these. A card missing here
# has no nvidia-smi total in the package catalog, and --wsl2 asks for --gpu-gib rather than guess one.
NVIDIA_SMI_TOTALS = {
    "rtx-4080": (16376, "https://github.com/akiyax/kvcache-lab/blob/f3d3cd01c47600601771662b35c85f5f791952a6/docs/phase1-baseline.md "
                        "('RTX 4080 16376 MiB', Windows 11 + WSL2; the doc's '15.99 总量' is vLLM's total there)"),
    "rtx-4060": (8188, "nvidia-smi (Windows, driver 591.86): public GitHub file found by exact-string search (index id "
                       "66489823453): 'Runtime GPU | NVIDIA GeForce RTX 4060, compute capability 8.9, 8188 MiB'; an "
                       "nvidia-smi csv fixture (index id 58507109806): '0, NVIDIA GeForce RTX 4060, 7, 1388, 8188, 30, [N/A], "
                       "115.00'"),
    "rtx-4060-laptop": (8188, "WSL2 + vLLM 0.28.0 notes, public GitHub file found by exact-string search (index id "
                              "69578286789): 'Usable VRAM | ~7950 MB, **not** the 8188 MB nvidia-smi advertises', vLLM: "
                              "'Free memory on device cuda:0 (6.93/8.0 GiB)'"),
    "rtx-4070-laptop": (8188, "https://github.com/Jesse3692/MultiLanguageLearning/blob/46c9289fab118c5fabceaa15f11a0d44101cef43/"
                              "cuda-c/docs/nvidia-smi.md (nvidia-smi -q under WSL, driver 566.36, WDDM: 'FB Memory Usage / "
                              "Total : 8188 MiB / Reserved : 240 MiB')"),
    "rtx-4080-laptop": (12282, "https://github.com/men16922/llmso-study (labs/wsl2-vllm-baseline, results/environment.md: "
                               "'NVIDIA GeForce RTX 4080 Laptop GPU, 12282 MiB, 581.57', WSL2)"),
    "rtx-4090-laptop": (16376, "nvidia-smi (Linux driver 580.173.02), public GitHub file found by exact-string search (index id "
                               "63636683260): '(NVIDIA GeForce RTX 4090 Laptop GPU, 580.173.02, 16376 MiB)'; WSL deviceQuery "
                               "(index id 53124659440): '16376 MBytes (17170956288 bytes)'"),
    "rtx-5090-laptop": (24463, "https://github.com/noonghunna/club-3090/pull/99 (rig report, kernel 6.6.87.2-microsoft-standard-WSL2: "
                               "'NVIDIA GeForce RTX 5090 Laptop GPU | 24463 MiB | driver 596.36')"),
    "rtx-a5000": (24564, "WSL2 audit, public GitHub file found by exact-string search (index id 60733841830): nvidia-smi in WSL2 "
                         "'NVIDIA RTX A5000 17MiB / 24564MiB' (driver 595.71), torch 'total_memory=24563MB'"),
    "rtx-5060": (8151, "nvidia-smi (Linux driver 595.71.05), public GitHub file found by exact-string search (index id "
                       "56694176032): 'NVIDIA GeForce RTX 5060, compute capability 12.0, 8151 MiB'"),
    "rtx-5000-ada-laptop": (16376, "nvidia-smi, public GitHub file found by exact-string search (index id 60894202974): 'RTX 5000 "
                                   "Ada Generation Laptop GPU, 16376 MiB total VRAM'"),
    "rtx-4500-ada": (24570, "nvidia-smi (driver 580.119.02), public GitHub file found by exact-string search (index id "
                            "54522518529): '- GPU: NVIDIA RTX 4500 Ada Generation, 24,570 MiB.'"),
    "rtx-pro-4000-blackwell": (24467, "nvidia-smi (driver 580.173.02), public GitHub file found by exact-string search (index "
                                      "id 71315649740): '| GPU | NVIDIA RTX PRO 4000 Blackwell, 24,467MiB |'"),
    "rtx-5000-ada": (32760, "public GitHub file found by exact-string search: '- GPU: `NVIDIA RTX 5000 Ada Generation, 32760 MiB`.'"),
    "rtx-pro-5000-blackwell": (48935, "public GitHub file found by exact-string search: 'NVIDIA RTX PRO 5000 Blackwell, 595.71.05, "
                                      "48935 MiB'"),
    "rtx-4070-super": (12282, "public GitHub file found by exact-string search: 'GPU: NVIDIA GeForce RTX 4070 SUPER, 12282 MiB, "
                              "sm_89' (nvidia-smi)"),
    "rtx-5070": (12227, "public GitHub file found by exact-string search: '| GPU available | NVIDIA GeForce RTX 5070, 12227 MiB "
                        "VRAM, compute capability 12.0 (Blackwell), driver 595.84 | detected: `nvidia-smi` |'"),
    "rtx-3090": (24576, "nvidia-smi (Linux driver 535.288.01), public GitHub file found by exact-string search (index id "
                        "67015699811): '| `nvidia_smi` | ok | NVIDIA GeForce RTX 3090, 24576 MiB, 535.288.01 |'; a WSL2/Docker "
                        "host (driver 610.74, index id 58673792092): 'GPU: NVIDIA GeForce RTX 3090, 24576 MiB VRAM'"),
    "rtx-4050-laptop": (6141, "https://github.com/Tegdam/pickr_ai/blob/54ed83acb410276a5ba38b209ac43fdd7bd49e6d/bench/docs/p0b-engine-verification.md (WSL2, driver 610.88: 'GPU `RTX 4050 Laptop 6141 MiB`'); also index ids 56244042360 (Fedora, driver 610.43.03: '6141 MiB VRAM'), 55425133668 (WSL2: '6141 MiB')"),
    "rtx-5080-laptop": (16303, "public GitHub file found by exact-string search (index id 65869858289), a WSL2 host's inventory: 'Host | WSL2 Ubuntu 22.04 (kernel 6.6.87.2-microsoft-standard-WSL2)', 'GPU | NVIDIA GeForce RTX 5080 Laptop GPU, 16303 MiB, compute capability 12.0'; the same 16303 in nvidia-smi CSV (index id 62005620721: 'NVIDIA GeForce RTX 5080 Laptop GPU, 16303, 12.0, 610.88') and Windows torch (index id 56949010090: '16303MiB')"),
    "l20": (46068, "https://github.com/vllm-project/vllm/issues/14011 (nvidia-smi, driver 550.54.15: 'NVIDIA L20 ... 45040MiB /  46068MiB')"),
}

# Tensor-core throughput the public GPU facts file lacks (docs/gpu-facts.md: "TFLOPS not retrieved"), from a public
# spec table; it agrees with NVIDIA's own headline for the card (4,000 AI TOPS = FP4 sparse = 8 x the BF16 dense rate).
# Peak dense tensor TFLOPS the shared facts file lacks, one source a card (cited in the card's `sources` as
# {"fields": [...], "url": ...}). Only figures the cited vendor document prints are taken: a datasheet figure marked
# "with sparsity" is halved (and the source says so). GeForce cards are listed at the FP32-accumulate rate, which is
# what BF16 GEMMs use (half the FP16-accumulate headline on consumer Ampere / Ada / Blackwell, the whitepapers' own rows);
# professional and datacenter cards run FP32 accumulation at full rate. A figure no retrieved vendor document prints
# stays None (a card without any is timed on bandwidth alone, its prefills flagged optimistic).
_WP_BLACKWELL = ("NVIDIA RTX Blackwell GPU architecture whitepaper, Table 3 (https://images.nvidia.com/aem-dam/Solutions/geforce/"
                 "blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf), dense/sparse pairs")
EXTRA_TFLOPS = {
    "rtx-pro-6000-blackwell": ({"bf16_tflops_dense": 503.8, "fp16_tflops_dense": 503.8, "fp8_tflops_dense": 1007.6},
                               "https://hmc-tech.com/gpu/nvidia-rtx-pro-6000-blackwell-vs-amd-radeon-pro-duo-polaris "
                               "(BF16 503.8 TFLOPS Tensor, FP8 1.01 PFLOPS Tensor, dense)"),
    # datacenter cards: NVIDIA datasheets / product pages
    "a10": ({"bf16_tflops_dense": 125},
            "NVIDIA A10 datasheet (https://www.nvidia.com/en-us/data-center/products/a10-gpu/): 'BFLOAT16 Tensor Core "
            "125 TF | 250 TF*', * with sparsity, so 125 is dense; quoted from a public GitHub file found by exact-string "
            "search (index id 66603391093)"),
    "h100-nvl": ({"bf16_tflops_dense": 835.5, "fp16_tflops_dense": 835.5, "fp8_tflops_dense": 1670.5},
                 "NVIDIA H100 product page / datasheet, H100 NVL column (https://www.nvidia.com/en-us/data-center/h100/; "
                 "PNY-hosted datasheet https://www.pny.com/file%20library/company/support/product%20brochures/"
                 "nvidia%20data%20center%20gpus/english/h100-nvl-datasheet.pdf): 'BFLOAT16 Tensor Core 1,671 teraFLOPS', "
                 "'FP16 Tensor Core 1,671 teraFLOPS', 'FP8 Tensor Core 3,341 teraFLOPS', all '* With sparsity', halved "
                 "here to the dense 835.5 / 835.5 / 1,670.5; quoted from public GitHub files found by exact-string search "
                 "(index ids 70974299245, 65910594837)"),
    # GeForce cards: the FP32-accumulate rows of NVIDIA's architecture whitepapers (half the FP16-accumulate rate)
    "rtx-3090": ({"bf16_tflops_dense": 71.2},
                 _WP_BLACKWELL + ": RTX 3090 'Peak BF16 Tensor TFLOPS with FP32 Accumulate' 71.2/142.4 (dense 71.2); quoted "
                 "from a public GitHub file found by exact-string search (index id 68387635605)"),
    "rtx-5090": ({"bf16_tflops_dense": 209.5, "fp8_tflops_dense": 419, "fp4_tflops_dense": 1676},
                 _WP_BLACKWELL + ": RTX 5090 'Peak BF16 Tensor TFLOPS with FP32 Accumulate' 209.5/419, FP8 with FP32 "
                 "accumulate 419/838, FP4 1676/3352 (dense first; the 3352 'AI TOPS' headline is FP4 with sparsity); quoted "
                 "from public GitHub files found by exact-string search (index ids 68387635605, 69880469454)"),
    # Turing has no BF16: FP16 with FP32 accumulate (the rate a BF16 checkpoint gets, run in FP16 on CC 7.5)
    "titan-rtx": ({"fp16_tflops_dense": 130.5},
                  "NVIDIA Ampere GA102 GPU architecture whitepaper (https://images.nvidia.com/aem-dam/en-zz/Solutions/geforce/"
                  "ampere/pdf/NVIDIA-ampere-GA102-GPU-Architecture-Whitepaper-V1.pdf), TITAN RTX 'Peak FP16 Tensor TFLOPS "
                  "with FP32 Accumulate' 130.5 (dense; Turing has no sparsity); quoted in a public GitHub file found by "
                  "exact-string search (index id 66869711046)"),
    "rtx-2080ti": ({"fp16_tflops_dense": 53.8},
                   "NVIDIA Turing GPU architecture whitepaper (https://images.nvidia.com/aem-dam/en-zz/Solutions/"
                   "design-visualization/technologies/turing-architecture/NVIDIA-Turing-Architecture-Whitepaper.pdf): "
                   "'peak FP16 Tensor TFLOPS with FP32 Accumulate' 53.8 for the reference-clocked RTX 2080 Ti (factory-"
                   "overclocked boards run faster); quoted in a public GitHub file found by exact-string search (index id "
                   "66869711046)"),
    # professional (workstation) cards: full-rate FP32 accumulate
    "rtx-a6000": ({"bf16_tflops_dense": 154.8},
                  "NVIDIA Ampere GA102 GPU architecture whitepaper v2 (https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-"
                  "gpu-architecture-whitepaper-v2.pdf), Table 3: RTX A6000 'Peak BF16 Tensor TFLOPS with FP32 Accumulate' "
                  "154.8/309.6 (dense 154.8); quoted in public GitHub files found by exact-string search (index ids "
                  "66603391093, 66869711046)"),
    "rtx-6000-ada": ({"bf16_tflops_dense": 364},
                     "NVIDIA RTX PRO Blackwell GPU architecture whitepaper, Table 4 (https://www.nvidia.com/content/dam/en-zz/"
                     "Solutions/design-visualization/quadro-product-literature/NVIDIA-RTX-Blackwell-PRO-GPU-Architecture-v1.0.pdf): "
                     "RTX 6000 Ada BF16 with FP32 accumulate 364 dense, 728 with sparsity; quoted from a public GitHub file found "
                     "by exact-string search (index id 68387635605)"),
}

# Derived dense BF16/FP16 tensor TFLOPS for GeForce cards no vendor document in reach lists. NVIDIA's consumer
# architectures share one tensor rate per SM: each SM has 4 tensor cores doing 128 dense FP16 FMA (256 FLOP) a clock
# with FP16 accumulate, 1,024 FLOP/clk/SM, and GeForce parts run FP32 accumulate (what BF16 GEMMs use) at half that:
# 512 FLOP/clk/SM (NVIDIA Ampere GA102 whitepaper, "Third-Generation Tensor Cores in GA10x GPUs"; the Ada and RTX
# Blackwell whitepapers keep the per-SM dense rate). So peak = 512 x SMs x boost clock. The constant is not taken on
# trust: DERIVATION_CHECKS below are the cards whose whitepaper prints the figure, and the formula must land within
# 1 % of each (tests/test_gpu_catalog_extra.py). A derived figure is marked in its source entry ("derived": the
# formula and its inputs) and its SM count and boost clock are cited; a card whose clock or SM count no retrieved page
# gives (laptop parts: boost clock set by the maker's TGP; RTX 4070 SUPER, 4070 Ti SUPER, 3080 Ti, 3070 Ti) stays None.
GEFORCE_TENSOR_FLOP_PER_SM_CLOCK = {"ampere": 512, "ada": 512, "blackwell": 512}
_WP_TABLE3 = (_WP_BLACKWELL + ", 'Peak BF16 Tensor TFLOPS with FP32 Accumulate' (RTX 3090 71.2/142.4, RTX 4090 "
              "165.2/330.4, RTX 5090 209.5/419); quoted from a public GitHub file found by exact-string search (index id "
              "68387635605)")
# (card id, architecture, SMs, boost MHz, the whitepaper's dense BF16 FP32-accumulate TFLOPS)
DERIVATION_CHECKS = [
    ("rtx-3090", "ampere", 82, 1695, 71.2),      # GA102: 82 SMs, 1,695 MHz boost
    ("rtx-4090", "ada", 128, 2520, 165.2),       # AD102: 128 SMs (deviceQuery), 2,520 MHz boost
    ("rtx-5090", "blackwell", 170, 2407, 209.5),  # GB202: 170 SMs (deviceQuery), 2,407 MHz boost
]


def derived_tensor_tflops(arch: str, sms: int, boost_mhz: float) -> float:
    """Dense BF16 (FP32-accumulate) tensor TFLOPS of a GeForce card: FLOP/clk/SM x SMs x boost clock."""
    return GEFORCE_TENSOR_FLOP_PER_SM_CLOCK[arch] * sms * boost_mhz * 1e6 / 1e12


_SCAN_30 = ("https://www.scan.co.uk/tekspek/gpu-graphics/nvidia-geforce-rtx-3060ti (table of NVIDIA's reference specs: "
            "boost clock and tensor cores, 4 per SM)")
_TT_50 = ("https://www.tweaktown.com/news/102469/nvidia-geforce-rtx-50-series-specs-pricing-and-performance-plan-that-"
          "upgrade-today/index.html (NVIDIA's CES 2025 spec table: CUDA cores, 128 per SM, and boost clock)")
_TH_5060 = ("https://tomshardware.com/pc-components/gpus/nvidia-rtx-5060-ti-final-specs-and-launch-day-allegedly-leaked "
            "(SMs) and https://prepmusiclog.com/nvidia-rtx-5060-5060-ti-review-you-can-have-affordable-or-future-proof-pick-one "
            "(review table: CUDA cores and boost clock)")
# card id -> (architecture, SMs, boost MHz, where the SM count and clock come from)
DERIVED_TENSOR_CARDS = {
    "rtx-3090-ti": ("ampere", 84, 1860, "https://www.tweaktown.com/news/84164/nvidia-geforce-rtx-3090-ti-full-specs-price-"
                    "performance-details/index.html ('GA102 GPU with 84 SM units', 'boost GPU clocks hit 1860MHz')"),
    "rtx-3080": ("ampere", 68, 1710, _SCAN_30 + ": RTX 3080 1,710 MHz, 272 tensor cores"),
    "rtx-3070": ("ampere", 46, 1725, _SCAN_30 + ": RTX 3070 1,725 MHz, 184 tensor cores"),
    "rtx-3060-ti": ("ampere", 38, 1665, _SCAN_30 + ": RTX 3060 Ti 1,665 MHz, 152 tensor cores"),
    "rtx-3060": ("ampere", 28, 1777, "https://cpu-gpu.alldbin.com/graphics-card-comparison/GeForce-RTX-3090-Ti-and-GeForce-"
                 "RTX-3060-12-GB-GA104-comparison.html (RTX 3060: 1,777 MHz boost, 3,584 CUDA cores = 28 SMs of 128)"),
    "rtx-4090-d": ("ada", 114, 2520, "https://hmc-tech.com/gpu/nvidia-geforce-rtx-4090-d (114 SMs, 2,520 MHz boost; the "
                   "page's own 'FP16 147.09 TFLOPS Tensor (FP32 Accumulate)' agrees)"),
    "rtx-4080-super": ("ada", 80, 2550, "https://www.cnews.cz/clanky/specifikace-grafik-geforce-rtx-4000-super-uz-jsou-venku-"
                       "vykon-muze-stoupnout-o-10-25/ (AD103-400, 80 SM, boost 2,550 MHz)"),
    "rtx-4070-ti": ("ada", 60, 2610, "https://incpak.com/?p=136649 (announced as the RTX 4080 12GB: 7,680 CUDA cores = "
                    "60 SMs, boost 2.61 GHz)"),
    "rtx-4070": ("ada", 46, 2475, "https://www.purepc.pl/nvidia-geforce-rtx-4070-nowe-informacje-o-specyfikacji-karty-"
                 "graficznej-ada-lovelace-ze-sredniego-segmentu (AD104, 46 SM, boost 2,475 MHz)"),
    "rtx-4060ti-16gb": ("ada", 34, 2535, "https://www.thefpsreview.com/?p=133840 (AD106: 34 SMs, boost 2,535 MHz; the 8 GB "
                        "and 16 GB cards share the chip and clocks)"),
    "rtx-4060ti-8gb": ("ada", 34, 2535, "https://www.thefpsreview.com/?p=133840 (AD106: 34 SMs, boost 2,535 MHz)"),
    "rtx-4060": ("ada", 24, 2460, _TH_5060 + ": RTX 4060 24 SMs, 2,460 MHz"),
    "rtx-5080": ("blackwell", 84, 2620, _TT_50 + ": RTX 5080 10,752 cores (84 SMs), 2.62 GHz"),
    "rtx-5070-ti": ("blackwell", 70, 2450, _TT_50 + ": RTX 5070 Ti 8,960 cores (70 SMs), 2.45 GHz"),
    "rtx-5070": ("blackwell", 48, 2510, _TT_50 + ": RTX 5070 6,144 cores (48 SMs), 2.51 GHz"),
    "rtx-5060ti-16gb": ("blackwell", 36, 2572, _TH_5060 + ": RTX 5060 Ti 36 SMs, 2,572 MHz"),
    "rtx-5060": ("blackwell", 30, 2497, _TH_5060 + ": RTX 5060 30 SMs, 2,497 MHz"),
}


def _derived_tensor_source(gid: str) -> dict:
    arch, sms, mhz, spec = DERIVED_TENSOR_CARDS[gid]
    per = GEFORCE_TENSOR_FLOP_PER_SM_CLOCK[arch]
    tf = derived_tensor_tflops(arch, sms, mhz)
    return {"fields": ["bf16_tflops_dense"], "url": spec,
            "derived": (f"DERIVED, not printed by a vendor document: {per} dense BF16 FLOP/clk/SM (GeForce {arch}, FP32 "
                        f"accumulate) x {sms} SMs x {mhz} MHz boost = {tf:.1f} TFLOPS; the per-SM rate reproduces "
                        + _WP_TABLE3 + " within 1 %")}


GIB = 1024 ** 3

# Cards with both an nvidia-smi memory.total (MiB) and a sourced CUDA total (deviceQuery / torch / llama.cpp's
# totalGlobalMem / a vLLM-printed total, MiB), one pair a card: (id, nvidia-smi MiB, CUDA MiB, where). The first
# thirteen are gpu-facts.md section 1's observed gaps (and section 3's first-hand H200); the rest are the pairs this
# catalog's own entries cite (their sources list both figures). Most pairs join two hosts and drivers, so the gap
# (nvidia-smi - CUDA, the driver's reserve) carries driver noise: the RTX 4070 reads 11866-12002 MiB across drivers.
_FACTS = "gpu-facts.md section 1 (observed nvidia-smi - CUDA gap)"
RESERVE_OBSERVATIONS = [
    ("tesla-t4", 15360, 15102, _FACTS), ("rtx-4090", 24564, 24210, _FACTS), ("a10g", 23028, 22587, _FACTS),
    ("h100-sxm", 81559, 81106, _FACTS), ("l40s", 46068, 45589, _FACTS), ("rtx-5090", 32607, 32117, _FACTS),
    ("l4", 23034, 22478, _FACTS), ("h20", 97871, 97285, _FACTS), ("h100-nvl", 95830, 95235, _FACTS),
    ("a100-40gb-sxm", 40960, 40339, _FACTS), ("b200", 183359, 182642, _FACTS), ("a100-80gb-sxm", 81920, 81158, _FACTS),
    ("h200", 143771, 143155, "gpu-facts.md section 3 (first-hand, one host, driver 580.159.04)"),
    ("v100-16gb", 16384, 16160, "shared gpus.json observations (torch 16160MB; nvidia-smi driver 570.211.01)"),
    ("v100-32gb", 32768, 32510, "shared gpus.json observations (torch 32510MB; nvidia-smi 32768MiB)"),
    ("rtx-3090", 24576, 24154, "deviceQuery 24154 MBytes (thamada/nvidia-smi RTX3090_deviceQuery.py); nvidia-smi driver 535.288.01"),
    ("rtx-3080", 10240, 9987, "one host: deviceQuery 9987 MBytes, nvidia-smi FB Total 10240 MiB (catalog rtx-3080)"),
    ("rtx-4080", 16376, 16049, "torch total_memory=16049MB; nvidia-smi 16376 MiB (catalog rtx-4080)"),
    ("rtx-a5000", 24564, 24114, "torch total_memory=24114MB; nvidia-smi 24564MiB (catalog rtx-a5000)"),
    ("rtx-4060", 8188, 7807, "torch 7807MiB (Linux); nvidia-smi 8188 MiB (catalog rtx-4060)"),
    ("rtx-4060-laptop", 8188, 7806, "torch 7806MiB (Linux); nvidia-smi 8188 (catalog rtx-4060-laptop)"),
    ("rtx-4070-laptop", 8188, 7806, "torch 7806MiB (Linux); nvidia-smi -q 8188 MiB (catalog rtx-4070-laptop)"),
    ("rtx-4050-laptop", 6141, 5802, "native Linux driver 610.57.04, both figures (catalog rtx-4050-laptop)"),
    ("rtx-4070", 12282, 11866, "llama.cpp totalGlobalMem 11866 MiB (Linux); nvidia-smi 12282 MiB (catalog rtx-4070)"),
    ("rtx-a4000", 16376, 16117, "torch 16117MiB; nvidia-smi 16,376 MiB driver 580.173.02 (catalog rtx-a4000)"),
    ("titan-rtx", 24576, 24212, "torch 24212MiB; nvidia-smi 24576 MiB (catalog titan-rtx)"),
    ("v100s-pcie-32gb", 32768, 32501, "torch 32501MiB; nvidia-smi 32768 MiB driver 550.107.02 (catalog v100s-pcie-32gb)"),
    ("rtx-4000ada", 20475, 20147, "deviceQuery 20147 MBytes; nvidia-smi 20,475 MiB (catalog rtx-4000ada)"),
    ("rtx-4000-sff-ada", 20475, 20055, "torch 20055MiB; nvidia-smi 20475 MiB driver 580.95.05 (catalog rtx-4000-sff-ada)"),
    ("rtx-3090-ti", 24564, 24114, "one document: torch total_memory=24114MB, nvidia-smi 24564 MiB driver 590.44.01"),
    ("rtx-4090-d", 24564, 24111, "torch 24111MiB; nvidia-smi 24564 MiB driver 590.48.01 (catalog rtx-4090-d)"),
    ("rtx-4070-ti", 12282, 12007, "torch 12007MiB (older driver); nvidia-smi 12282 MiB (catalog rtx-4070-ti)"),
    ("rtx-4060ti-8gb", 8188, 7806, "torch 7806MiB (Linux); nvidia-smi 8188 MiB (catalog rtx-4060ti-8gb)"),
    ("gh200-144gb", 146831, 145920, "cuDeviceTotalMem 145920 MiB; nvidia-smi 146831 MiB driver 580.173.02 (catalog gh200-144gb)"),
    ("rtx-a2000-12gb", 12282, 12017, "torch 12017MiB; nvidia-smi 12282 MiB driver 575.64.05 (catalog rtx-a2000-12gb)"),
    ("titan-v", 12288, 12064, "torch 12064.375MB; nvidia-smi 12288MiB driver 515.65.01 (catalog titan-v)"),
    ("rtx-5070-ti", 16303, 15842, "llama.cpp 15842 MiB (= vLLM's 15.47 GiB); nvidia-smi 16,303 MiB driver 610.57.04 (catalog rtx-5070-ti)"),
    ("rtx-2060", 6144, 5918, "torch 5918MiB; nvidia-smi 6144 MiB driver 595.84 (catalog rtx-2060)"),
    ("gtx-1080", 8192, 8119, "torch 1.7.1 8119.1875MB; nvidia-smi 8192 MiB (catalog gtx-1080)"),
    ("rtx-3060-laptop", 6144, 5946, "hashcat cuDeviceTotalMem 5946 MiB (Linux); nvidia-smi 6144 MiB (catalog rtx-3060-laptop)"),
    ("tesla-p40", 23040, 22917, "ECC on: torch 22.38 GiB; nvidia-smi 23,040 MiB (catalog tesla-p40)"),
    ("rtx-pro-6000-blackwell", 97887, 97249, "vLLM-printed 94.97 GiB (VLLM_SEEN_TOTAL_GIB); nvidia-smi 97887MiB (catalog)"),
]


def _line_fit(pairs: list[tuple[int, int]]) -> tuple[float, float]:
    """Least squares of gap (MiB) = a + b x nvidia-smi GiB over (nvidia-smi MiB, CUDA MiB) pairs: (a, b)."""
    xs, ys = [s / 1024 for s, _ in pairs], [s - c for s, c in pairs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def reserve_fit(observations: list = RESERVE_OBSERVATIONS) -> dict:
    """The driver reserve (nvidia-smi total - CUDA total, MiB) fitted as a + b x nvidia-smi GiB over the observations,
    with its leave-one-out absolute errors (MiB) beside those of the flat 0.6 GiB (614.4 MiB) reserve it replaces."""
    pairs = [(s, c) for _, s, c, _ in observations]
    a, b = _line_fit(pairs)
    loo = []
    for i, (s, c) in enumerate(pairs):
        ai, bi = _line_fit(pairs[:i] + pairs[i + 1:])
        loo.append(abs((s - c) - (ai + bi * s / 1024)))
    flat = [abs((s - c) - 0.6 * 1024) for s, c in pairs]

    def stats(v: list[float]) -> tuple[float, float, float]:  # validate's median / p90 / max of absolute errors
        from kvplan.validate import _stats

        d = _stats(v)
        return d["median_abs_pct"], d["p90_abs_pct"], d["max_abs_pct"]

    return {"a_mib": a, "b_mib_per_gib": b, "n": len(pairs), "loo": stats(loo), "flat": stats(flat)}


def estimated_reserve_mib(nvidia_smi_mib: float, fit: dict | None = None) -> float:
    """The fitted driver reserve (MiB) of a card whose nvidia-smi total is nvidia_smi_mib."""
    fit = fit or reserve_fit()
    return fit["a_mib"] + fit["b_mib_per_gib"] * nvidia_smi_mib / 1024

# Exact parameter counts stated by a public source (the seed documents read them from the Hub API).
KNOWN_PARAMS = {
    "Qwen/Qwen2.5-0.5B-Instruct": (494_032_768, "BF16", "seeds/anatomy-of-a-vllm-setup.txt (Hub API: 494,032,768 parameters)"),
    "Qwen/Qwen2.5-7B-Instruct": (7_615_616_512, "BF16", "seeds/anatomy-of-a-vllm-setup.txt (Hub API: 7,615,616,512 parameters)"),
}

# Fields missing from a shared config excerpt, each completion with its sources. Only fields two public
# sources state alike are added; the entry records which ones were added and from where.
# architectures: the causal-LM class transformers registers for the config's model_type
# (MODEL_FOR_CAUSAL_LM_MAPPING_NAMES), which the checkpoint's own config.json names
_CAUSAL_LM_SOURCE = "architectures: transformers' causal-LM class for the config's model_type (MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)"

# Qwen3-VL's text rope: interleaved multimodal rope with sections [24, 20, 20] (half the 128 head_dim)
_QWEN3_VL_ROPE = {"mrope_interleaved": True, "mrope_section": [24, 20, 20], "rope_type": "default"}
_QWEN3_VL_TOKENS = {"vision_start_token_id": 151652, "vision_end_token_id": 151653}
_QWEN3_VL_SOURCES = [
    "vLLM 0.11.0 model_executor/models/qwen3_vl.py Qwen3VLForConditionalGeneration.forward: 'mrope is enabled "
    "(default setting for Qwen3VL opensource models)'; layers/rotary_embedding/__init__.py get_rope builds the "
    "MRotaryEmbedding from rope_scaling['mrope_section'] and 'mrope_interleaved' (added for Qwen3-VL, vLLM PR #24727)",
    "transformers modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding: mrope_section defaults to [24, 20, 20] "
    "(transformers 5.24); transformers 5 reads the checkpoints' rope_scaling into rope_parameters",
]
_QWEN3_VL_30B_COPY = (
    "text_config rope_scaling {mrope_interleaved: true, mrope_section: [24, 20, 20], rope_type: default} and "
    "vision_start/end_token_id 151652/151653 transcribed from the Hub config in "
    "github.com/InJuly7/Qwen3-VL-MoE@23590ea config.py (Qwen3_VL_MOE_Text_Config / Qwen3_VL_MOE_Config; that file "
    "cuts the layer counts, the rope is the checkpoint's) and in a Rust test fixture 'transcribed byte-for-byte' from "
    "Qwen/Qwen3-VL-30B-A3B-Instruct/config.json at commit 1fc78ad (public code search); vLLM's logged weights agree: "
    "14.7708 GiB on 4 x RTX 3090 (record qwen3-vl-30b-a3b-instruct-rtx3090-u090-tp4-l64k) against 14.549 GiB "
    "predicted with the plain rotary cache and 14.736 GiB with the multimodal one")
_QWEN3_VL_2B_COPY = (
    "the same rope_scaling and token ids in public transcriptions of Qwen/Qwen3-VL-2B-Instruct's config.json "
    "(transformers_version 4.57.0.dev0, 28 layers, hidden 2048, 16 heads, 8 KV heads: a Rust parser test of the "
    "'official checkpoint shape' and Python Qwen3VLConfig fixtures, public code search)")

CONFIG_COMPLETIONS = {
    # The copy in shared/data/models has no q_lora_rank key, so AutoConfig fills DeepseekV2Config's default (1536) and
    # the model gets a query LoRA it does not have; the checkpoint's config.json sets it null (a plain q_proj, which
    # vLLM's deepseek_v2.py builds when q_lora_rank is None).
    "deepseek-ai/DeepSeek-V2-Lite": (
        {"q_lora_rank": None},
        ["q_lora_rank null in public transcriptions of deepseek-ai/DeepSeek-V2-Lite's config.json (a Megatron model "
         "config citing huggingface.co/deepseek-ai/DeepSeek-V2-Lite: 'q_lora_rank: null', 27 layers, hidden 2048, 16 "
         "heads, kv_lora_rank 512; a GGUF conversion table: 'q lora rank (absent) 0 (lite: no q low-rank)'; MLA "
         "adapters noting 'DeepSeek-V2-Lite skips it (q_lora_rank: null) and projects Q directly'; public code search)"],
    ),
    # The copy in shared/data/models has no vision_config, so transformers fills SiglipVisionConfig's defaults (a
    # 768-wide, 12-layer tower) and kvplan counted no vision tower; the checkpoint's config.json holds the same SigLIP
    # tower as gemma-3-27b-it's (whose copy here has it)
    "google/gemma-3-4b-it": (
        {"vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                           "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27,
                           "patch_size": 14, "vision_use_head": False}},
        ["vision_config as public transcriptions of google/gemma-3-4b-it's config.json give it (a model-loader test "
         "quoting 'the original gemma-3-4b-it's config.json': hidden 1152, image 896, intermediate 4304, "
         "siglip_vision_model, 16 heads, 27 layers, patch 14, no head; a quantizer's pinned gemma3 4B config with the "
         "same tower, checked against the model card's 4.30 B parameters; public code search), identical to the "
         "vision_config of shared/data/models/google--gemma-3-27b-it.json"],
    ),
    "zai-org/GLM-4.5": (
        {"model_type": "glm4_moe", "vocab_size": 151552, "intermediate_size": 12288, "moe_intermediate_size": 1536,
         "n_routed_experts": 160, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
         "num_nextn_predict_layers": 1, "tie_word_embeddings": False, "attention_bias": True,
         "partial_rotary_factor": 0.5, "torch_dtype": "bfloat16"},
        ["THUDM slime's Megatron arguments for glm4.5-355B-A32B (github.com/zyzshishui/slime, scripts/models/"
         "glm4.5-355B-A32B.sh: 3 dense + 89 MoE layers, ffn 12288, moe ffn 1536, 160 experts, top-8, vocab 151552, "
         "untied embeddings, QKV bias, rotary-percent 0.5)",
         "the same numbers in a parameter-counter's GLM-4.7 fixture (same architecture; glm4_moe, 1 shared expert, "
         "1 next-token-prediction layer, bf16), which counts 353 B parameters"],
    ),
    "ibm-granite/granite-4.0-h-small": (
        {"layer_types": (["mamba"] * 9 + ["attention"]) * 4, "max_position_embeddings": 131072,
         "position_embedding_type": "nope", "architectures": ["GraniteMoeHybridForCausalLM"]},
        ["layer kinds: 36 mamba + 4 attention, the tally of the live config's layer_types in a public "
         "sizing write-up (github.com, 'Worked example: Granite-4.0-H-Small'; IBM: Mamba-2 and transformer "
         "blocks 9:1). The sources give the counts, not the positions: the list places one attention layer "
         "after each nine mamba layers. vLLM's memory arithmetic depends on the counts only",
         "context 131,072 tokens (open-source-ai.tech/models/granite-4-0-small; IBM's card: validated at 128K); "
         "no positional encoding (NoPE; en.immers.cloud/ai/ibm-granite/granite-4.0-h-small)", _CAUSAL_LM_SOURCE],
    ),
    # config excerpts that left out the checkpoint's architectures
    "ibm-granite/granite-4.0-h-tiny": ({"architectures": ["GraniteMoeHybridForCausalLM"]}, [_CAUSAL_LM_SOURCE]),
    "tiiuae/Falcon-H1-7B": ({"architectures": ["FalconH1ForCausalLM"]}, [_CAUSAL_LM_SOURCE]),
    # The shared Qwen3-VL copies lack the text_config's rope_scaling (and the top-level vision start/end token ids):
    # without the mrope_section kvplan charged the plain rotary cache, a quarter of the multimodal one vLLM builds
    # (weights.py _rotary_bytes).
    "Qwen/Qwen3-VL-30B-A3B-Instruct": ({"text_config": {"rope_scaling": _QWEN3_VL_ROPE}, **_QWEN3_VL_TOKENS},
                                       _QWEN3_VL_SOURCES + [_QWEN3_VL_30B_COPY]),
    "Qwen/Qwen3-VL-2B-Instruct": ({"text_config": {"rope_scaling": _QWEN3_VL_ROPE}, **_QWEN3_VL_TOKENS},
                                  _QWEN3_VL_SOURCES + [_QWEN3_VL_2B_COPY]),
}

# Copies in shared/data/models that hold only the text_config of a multimodal checkpoint: the catalog entry wraps the
# copy as that text_config under the checkpoint's own top level (architecture, model_type, vision tower, token ids).
CONFIG_WRAPS = {
    # The shared copy is Qwen3.8-27B's text_config (model_type qwen3_5_text, labelled Qwen3_5ForCausalLM). The
    # checkpoint vLLM loads is the multimodal one: three public startups of it resolve
    # 'Qwen3_5ForConditionalGeneration' and load and profile its vision tower (tests/data/SOURCES-logs.md: the
    # RTX PRO 6000 record of at0rp1d0i-cell/peephole, the A100 record of Lebhoryi/vllm-sglang-learning, the RTX 5090
    # NVFP4 record of extra_records.jsonl), and its tensors (55,562,855,904 B at revision 1d4bf0f2ff60, the peephole
    # report) are the Qwen3.5-27B shape with its vision tower and MTP layer (kvplan counts 55,598,528,224 B for that
    # shape, 0.06 % over; without the tower it would be 1.7 % under). The text configs agree field for field, so the
    # top level is Qwen3.5-27B's (shared/data/models/Qwen--Qwen3.5-27B.json).
    "Qwen/Qwen3.8-27B": ("Qwen--Qwen3.5-27B.json", [
        "Qwen3_5ForConditionalGeneration, as public vLLM startups of Qwen/Qwen3.8-27B resolve it, with a vision tower "
        "they load and profile (tests/data/SOURCES-logs.md: at0rp1d0i-cell/peephole reports/p0-model/model-report.md "
        "@d17615e; Lebhoryi/vllm-sglang-learning week-1 report @9216889; the unsloth NVFP4 start in "
        "extra_records.jsonl)",
        "the top level (vision_config, token ids) of Qwen/Qwen3.5-27B's config.json (shared/data/models copy), whose "
        "text_config matches this copy field for field: the checkpoint's 55,562,855,904 B of tensors (peephole, "
        "revision 1d4bf0f2ff60) are that shape with its tower and MTP layer (55,598,528,224 B counted, +0.06 %)"]),
}


def _wrapped(config: dict, outer: dict) -> tuple[dict, list[str]]:
    """`config` (a text_config copy) as the text_config of `outer`'s top level, and the names of the fields added."""
    text = {k: v for k, v in config.items() if k != "architectures"}
    top = {k: v for k, v in outer.items() if k != "text_config"}
    return {**top, "text_config": text}, sorted(top) + ["text_config"]


# Repositories that ask users to accept a licence before download (Hub model pages).
GATED_PREFIXES = ("meta-llama/", "google/gemma", "mistralai/")


def _merged(shared_row: dict | None, extra: dict) -> dict:
    """An EXTRA_GPUS entry over the shared row of its id: set values of the entry win, aliases and sources are joined."""
    if shared_row is None:
        return extra
    merged = {**shared_row, **{k: v for k, v in extra.items() if v not in (None, [], "")}}
    merged["aliases"] = list(dict.fromkeys((extra.get("aliases") or []) + (shared_row.get("aliases") or [])))
    merged["sources"] = (extra.get("sources") or []) + (shared_row.get("sources") or [])
    return merged


def _nvidia_smi_total(gid: str, row: dict) -> dict:
    """nvidia-smi's memory.total of a card (MiB) and its source: NVIDIA_SMI_TOTALS for the extra cards, else the shared
    row's figure with the source the shared file gives for it; None where no source gives one."""
    if gid in NVIDIA_SMI_TOTALS:
        mib, src = NVIDIA_SMI_TOTALS[gid]
        return {"nvidia_smi_total_mib": mib, "nvidia_smi_total_source": src}
    for s in row.get("sources") or []:
        if isinstance(s, dict) and "nvidia_smi_total_mib" in (s.get("fields") or []) and row.get("nvidia_smi_total_mib"):
            mib = int(row["nvidia_smi_total_mib"])
            src = s.get("url") or f"public GitHub file found by exact-string search: '{s.get('quote')}'"
            if src.startswith("../docs/gpu-facts.md"):  # the shared docs' own observation, cited as the package cites it
                what = src.removeprefix("../docs/gpu-facts.md").strip(" ()")  # "first-hand H200 observation"
                section = " section 3" if what.startswith("first-hand") else ""  # gpu-facts.md 3: First-hand observation
                src = f"gpu-facts.md{section} ({what + ', ' if what else ''}nvidia-smi memory.total {mib} MiB)"
            return {"nvidia_smi_total_mib": mib, "nvidia_smi_total_source": src}
    return {"nvidia_smi_total_mib": None, "nvidia_smi_total_source": None}


def build_gpus(shared: Path) -> list[dict]:
    from kvplan.versions import INTEGRATED_MEMORY_CC

    rows = json.loads((shared / "data" / "gpus.json").read_text())
    # A card in EXTRA_GPUS is merged onto the shared row of the same id (so no id appears twice in the catalog):
    # its sourced values win, the shared row's other facts (TFLOPS, aliases, sources) are kept.
    shared_by_id = {r["id"]: r for r in rows}
    extra_ids = {g["id"] for g in EXTRA_GPUS}
    out = []
    fit = reserve_fit()  # one fit for every estimated total below
    for g in [r for r in rows if r["id"] not in extra_ids] + [_merged(shared_by_id.get(e["id"]), e) for e in EXTRA_GPUS]:
        gid = g["id"]
        flops, flops_source = EXTRA_TFLOPS.get(gid, ({}, None))
        derived = _derived_tensor_source(gid) if gid in DERIVED_TENSOR_CARDS and g.get("bf16_tflops_dense") is None else None
        if derived:  # a sourced figure always wins over a derived one
            flops = {"bf16_tflops_dense": round(derived_tensor_tflops(*DERIVED_TENSOR_CARDS[gid][:3]), 1)}
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
            # nvidia-smi counts driver-reserved memory, 0.2-0.9 GiB above CUDA's total and growing with the card
            # (gpu-facts.md section 1; RESERVE_OBSERVATIONS): the reserve fitted over the cards with both totals.
            reserve = estimated_reserve_mib(g["nvidia_smi_total_mib"], fit)
            total_bytes = int((g["nvidia_smi_total_mib"] - reserve) * 1024 ** 2)
            how = (f"estimate: nvidia-smi total minus a fitted driver reserve of {reserve:.0f} MiB (reserve = "
                   f"{fit['a_mib']:.0f} MiB + {fit['b_mib_per_gib']:.2f} MiB per GiB of nvidia-smi total, least squares over "
                   f"{fit['n']} cards with both an nvidia-smi and a sourced CUDA total, tools/build_catalog.py "
                   f"RESERVE_OBSERVATIONS; leave-one-out error median / p90 / max {fit['loo'][0]:.0f} / {fit['loo'][1]:.0f} / "
                   f"{fit['loo'][2]:.0f} MiB, a flat 0.6 GiB's {fit['flat'][0]:.0f} / {fit['flat'][1]:.0f} / "
                   f"{fit['flat'][2]:.0f} MiB)")
            src = g.get("memory_source") or "shared/data/gpus.json"
        elif gid in NO_TOTAL_REASONS:  # a card kvplan knows but plans only with --gpu-gib (resolve._find_gpu asks)
            total_bytes = None
            how, src = "unknown", NO_TOTAL_REASONS[gid]
        else:
            total_bytes = None
            how, src = "unknown", "shared/data/gpus.json"
        out.append({
            "id": gid,
            "name": g["name"],
            "aliases": (g.get("aliases") or []) + EXTRA_ALIASES.get(gid, ([], ""))[0],
            "other_memory_gb": OTHER_MEMORY_GB.get(gid, ([], ""))[0],
            "vendor": g.get("vendor", "NVIDIA"),
            "memory_gb_marketing": g.get("memory_gb_marketing"),
            "total_bytes": total_bytes,
            "total_source": f"{how}: {src}",
            "compute_capability": g.get("compute_capability"),
            # memory shared with the CPU: by compute capability (GB10, Jetson) or named (an AMD APU has none)
            "integrated_memory": g.get("compute_capability") in INTEGRATED_MEMORY_CC or gid in INTEGRATED_MEMORY_IDS,
            # why a card kvplan knows has no total (it then asks for --gpu-gib); None where a total is sourced
            "no_total_reason": NO_TOTAL_REASONS.get(gid) if total_bytes is None else None,
            "hbm_bandwidth_tbps": g.get("hbm_bandwidth_tbps"),
            "bf16_tflops": g.get("bf16_tflops_dense"),
            "fp16_tflops": g.get("fp16_tflops_dense"),
            "fp8_tflops": g.get("fp8_tflops_dense"),
            "fp4_tflops": g.get("fp4_tflops_dense"),
            "interconnect": g.get("interconnect"),
            **_nvidia_smi_total(gid, g),
            "sources": ((g.get("sources") or [])[:8] + ([{"fields": sorted(flops), "url": flops_source}] if flops_source else [])
                        + ([derived] if derived else [])
                        + ([f"aliases {EXTRA_ALIASES[gid][0]}: {EXTRA_ALIASES[gid][1]}"] if gid in EXTRA_ALIASES else [])
                        + ([f"also sold with {OTHER_MEMORY_GB[gid][0]} GB: {OTHER_MEMORY_GB[gid][1]}"] if gid in OTHER_MEMORY_GB else [])),
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


def _complete(config: dict, fields: dict, prefix: str = "") -> tuple[dict, list[str]]:
    """`config` with the `fields` it lacks added (a dict value is completed key by key inside the config's own
    sub-dict, e.g. text_config), and the dotted names of the fields added; a field the config has is kept."""
    out, added = dict(config), []
    for k, v in fields.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k], sub = _complete(out[k], v, f"{prefix}{k}.")
            added += sub
        elif k not in out:
            out[k] = v
            added.append(f"{prefix}{k}")
    return out, added


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
        completion = None
        if model_id in CONFIG_COMPLETIONS:
            fields, sources = CONFIG_COMPLETIONS[model_id]
            config, added = _complete(config, fields)
            completion = {"fields": sorted(added), "sources": sources}
        if model_id in CONFIG_WRAPS:
            outer_name, sources = CONFIG_WRAPS[model_id]
            config, added = _wrapped(config, json.loads((folder / outer_name).read_text()))
            completion = {"fields": added, "sources": sources, "wrapped_as": "text_config"}
        quant_path = folder / f"{path.stem}.hf_quant_config.json"
        resolved, why = resolve_with_autoconfig(config)
        entry = {
            "id": model_id,
            "source": f"https://huggingface.co/{model_id}/blob/main/config.json (copy: shared/data/models/{path.name})",
            "config": config,
            "resolved_config": resolved,
            "resolved_by": f"transformers {transformers.__version__} AutoConfig" if resolved else None,
            "resolve_note": why,
            "completed": completion,
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
