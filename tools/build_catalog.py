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

# GB10's total solved from four vLLM 0.25.1 startups' "CUDA graph memory profiling is enabled ... --gpu-memory-utilization=u
# is equivalent to ... =e" lines: estimate = (u - e) x total gives 121.1, 122.4, 122.2 and 121.3 GiB (mean 121.7;
# log_excerpts.jsonl, https://github.com/eugr/spark-vllm-docker issues).
EXTRA_TOTALS = {"gb10": (121.7, "solved from four vLLM 0.25.1 DGX Spark logs (CUDA-graph utilization-equivalence lines)"),
                "rtx-4080": (15.99, "https://github.com/mrpid12org/imageworks/blob/4fdc8eb92f03/vllm_llava_debug.log")}

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
            how, src = "CUDA total (deviceQuery / torch)", "shared/data/gpus.json"
        elif g.get("nvidia_smi_total_mib"):
            # nvidia-smi counts driver-reserved memory: 0.25-0.75 GiB above CUDA's total (gpu-facts.md).
            total_bytes = int(g["nvidia_smi_total_mib"] * 1024 ** 2 - 0.6 * GIB)
            how, src = "estimate: nvidia-smi total minus 0.6 GiB driver reserve", "shared/data/gpus.json"
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
