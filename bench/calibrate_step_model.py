"""Fit and check the step-time coefficients (kvplan.simulate.StepCoefficients) on measured data.

Data (shared/data/validation/, see its README):
* aiconfigurator_silicon_sample.csv, vLLM aggregated rows of dense models: Llama-3.1-70B fp8 on
  H100/H200 (TP 1-8), Qwen3-32B on H100 (TP 2-8), Llama-3.1-8B-Instruct-FP8 on H200 (TP 1).
  Each row is a closed-loop benchmark at `batch_size` concurrent clients with fixed isl/osl;
  we replay it as `batch_size` requests' worth of sequence slots (max_num_seqs = concurrency,
  everything queued at t = 0), so TTFT is measured from admission, as the client sees it.
* sarathi_serve_osdi24/table-2_results.csv and h200_microbench_measured.json: checked, printed.

Run:  PYTHONPATH=src python bench/calibrate_step_model.py [--fit] [--moe] [--gpu-profiles]
      [--extract-mixed-attention LLMSERVINGSIM_GIT_DIR]  (rewrites bench/data/mixed_attention_cells.csv)
      [--extract-gemm-batches LLMSERVINGSIM_GIT_DIR]  (adds the layer GEMMs at 2-256 tokens to gpu_kernel_profiles.csv)
Prints MAPE of TPOT and TTFT per (model, GPU, TP) cell for the current coefficients; with --fit a
coarse grid search over (t_fixed_s, t_seq_layer_s, eta_kv_mem) minimising TPOT MAPE on the rows whose
concurrency x (isl + osl) fits the KV pool (`kv_bound`: 16 of the 219 rows do not -- their engine ran fewer
sequences than the client's concurrency, which the replay with an unbounded pool cannot reproduce).
bench/step_residuals.py prints the residuals against concurrency and context.
"""

from __future__ import annotations

import csv
import itertools
import statistics
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

from kvplan.resolve import resolve_gpu, resolve_model
from kvplan.simulate import DEFAULT_COEFFICIENTS, EngineConfig, StepModel, embedding_bytes, scheduler_rules, simulate
from kvplan.workload import Workload

VALID = Path(__file__).resolve().parents[2] / "shared" / "data" / "validation"
if not VALID.is_dir():
    VALID = Path("/work/shared/data/validation")

MODELS = {"meta-llama/Llama-3.1-70B": "meta-llama/Llama-3.1-70B", "Qwen/Qwen3-32B": "Qwen/Qwen3-32B",
          "nvidia/Llama-3.1-8B-Instruct-FP8": "meta-llama/Llama-3.1-8B-Instruct"}
GPUS = {"h100_sxm": "H100", "h200_sxm": "H200", "b200_sxm": "B200"}
FIT_SYSTEMS = ("h100_sxm", "h200_sxm")  # B200 rows are a hold-out (bench/step_residuals.py --b200), never fitted on


def rows(systems=FIT_SYSTEMS, models=tuple(MODELS), quant=None):
    """vLLM aggregated rows; `quant`: keep only these gemm_quant_mode values (None: all)."""
    out = []
    with open(VALID / "aiconfigurator_silicon_sample.csv") as fh:
        for r in csv.DictReader(fh):
            if r["backend"] != "vllm" or r["mode"] != "agg" or r["model_path"] not in models or r["system"] not in systems:
                continue
            if quant is not None and r["gemm_quant_mode"] not in quant:
                continue
            if int(r["pp_size"] or 1) != 1:
                continue
            out.append(r)
    return out


def step_model_for(r, coeffs):
    m = resolve_model(MODELS[r["model_path"]])
    gpu = resolve_gpu(GPUS[r["system"]])[0]
    fp8 = (r["gemm_quant_mode"] or r["precision"] or "").startswith("fp8") or r["model_path"].endswith("FP8")
    tp = int(r["tp_size"])
    params_total = m.weights_bytes / m.dtype_bytes
    weights = params_total * (1 if fp8 else 2)
    # KV dtype is not recorded; NVIDIA's -FP8 checkpoints ship an fp8 kv_cache_scheme, the others run bf16 KV
    kv_bytes = 1 if r["model_path"].endswith("FP8") else 2
    kv_per_token = 2 * m.num_layers * m.num_kv_heads * m.head_dim * kv_bytes / tp
    return StepModel.from_numbers(
        weights_bytes=weights, active_params=m.active_params, num_layers=m.num_layers, hidden_size=m.hidden_size,
        num_attention_heads=m.num_attention_heads, num_kv_heads=m.num_kv_heads, head_dim=m.head_dim,
        vocab_size=m.vocab_size, kv_bytes_per_token=kv_per_token, hbm_bytes_per_s=gpu.hbm_bandwidth_bytes_per_s,
        peak_flops_per_s=gpu.peak_flops("fp8" if fp8 else "bfloat16"), tensor_parallel_size=tp,
        nvlink=gpu.has_nvlink, interconnect=gpu.interconnect,
        embedding_bytes=embedding_bytes(m) * (0.5 if fp8 else 1.0), coeffs=coeffs)


MEMORY_BYTES = {"h100_sxm": 80e9, "h200_sxm": 141e9, "b200_sxm": 180e9}


def kv_bound(r) -> bool:
    """True when `batch_size` sequences of isl + osl tokens cannot all hold KV at once: vLLM at
    gpu_memory_utilization 0.9, less the weights per rank and ~4 GB of activations / CUDA graphs / NCCL."""
    m = resolve_model(MODELS[r["model_path"]])
    tp = int(r["tp_size"])
    sm = step_model_for(r, DEFAULT_COEFFICIENTS)
    weights = sm.weights_bytes_per_rank + embedding_bytes(m) / tp
    capacity = (0.9 * MEMORY_BYTES[r["system"]] - weights - 4e9) / sm.kv_bytes_per_token
    return int(r["batch_size"]) * (int(r["isl"]) + int(r["osl"])) > capacity


# MoE rows (never fitted on): the step model kvplan simulate builds from a plan (StepModel.from_plan), with the
# checkpoint's own quantized bytes (FP8 blocks, MXFP4 experts) and pure tensor parallelism.
MOE_MODELS = ("Qwen/Qwen3-235B-A22B-FP8", "MiniMaxAI/MiniMax-M2.5", "openai/gpt-oss-120b")
_MOE_PLANS: dict = {}


def moe_step_model_for(r, coeffs):
    import kvplan

    key = (r["model_path"], r["system"], r["tp_size"])
    if key not in _MOE_PLANS:
        _MOE_PLANS[key] = kvplan.fit(r["model_path"], GPUS[r["system"]], tensor_parallel_size=int(r["tp_size"]),
                                     max_model_len=16384, vllm_version=r["backend_version"])
    return StepModel.from_plan(_MOE_PLANS[key], coeffs)


def moe_rows():
    """Pure-TP rows of a stated release whose concurrency fits the plan's KV pool (x (isl + osl)) and its max_num_seqs
    and whose TTFT shows no queue (the others ran fewer sequences than the client's concurrency: 512-client gpt-oss rows
    with 20-460 s TTFT)."""
    out = []
    for r in rows(systems=tuple(GPUS), models=MOE_MODELS):
        if (r["moe_ep_size"] or "1") != "1" or (r["attention_dp_size"] or "1") != "1" or not r["backend_version"][:1].isdigit():
            continue
        moe_step_model_for(r, DEFAULT_COEFFICIENTS)  # plans it
        plan = _MOE_PLANS[(r["model_path"], r["system"], r["tp_size"])]
        c = int(r["batch_size"])
        queued = float(r["silicon_ttft_ms"]) > 10_000  # a TTFT over 10 s is a queue the closed-loop replay does not have
        if c * (int(r["isl"]) + int(r["osl"])) <= plan.kv_cache_tokens and c <= plan.args.max_num_seqs and not queued:
            out.append(r)
    return out


def replay(r, coeffs, builder=None):
    """Closed loop at concurrency C ~ C sequence slots with the whole batch queued at t = 0."""
    c = int(r["batch_size"])
    isl, osl = int(r["isl"]), int(r["osl"])
    n = max(4 * c, 16)
    w = Workload(name="aic", prompt_tokens=np.full(n, isl, dtype=np.int64), completion_tokens=np.full(n, osl, dtype=np.int64),
                 arrival_s=np.zeros(n))
    cfg = EngineConfig(num_gpu_blocks=10_000_000, block_size=16, max_num_seqs=c, max_num_batched_tokens=8192,
                       max_model_len=isl + osl + 16)
    res = simulate(w, cfg, (builder or step_model_for)(r, coeffs), scheduler_rules("0.12.0"))
    # TTFT from admission, steady state (requests after the first wave of C)
    ttft = (res.first_token_s[c:] - res.first_scheduled_s[c:]).mean() * 1e3
    return float(ttft), float(res.tpot_s.mean() * 1e3)


def evaluate(rs, coeffs, verbose=False, builder=None):
    cells = defaultdict(list)
    for r in rs:
        ttft, tpot = replay(r, coeffs, builder)
        key = (r["model_path"].split("/")[-1], r["system"] + (" " + r["backend_version"] if builder else ""), "TP" + r["tp_size"])
        cells[key].append((ttft / float(r["silicon_ttft_ms"]) - 1, tpot / float(r["silicon_tpot_ms"]) - 1))
    all_tpot = [abs(e[1]) for v in cells.values() for e in v]
    all_ttft = [abs(e[0]) for v in cells.values() for e in v]
    if verbose:
        print(f"{'model':34s} {'gpu':16s} {'tp':4s} {'rows':>4s} {'TPOT MAPE':>9s} {'TPOT bias':>9s} {'TTFT MAPE':>9s}")
        for key, v in sorted(cells.items()):
            e = np.array(v)
            print(f"{key[0]:34s} {key[1]:16s} {key[2]:4s} {len(v):4d} {np.abs(e[:,1]).mean()*100:8.1f}% {e[:,1].mean()*100:+8.1f}% {np.abs(e[:,0]).mean()*100:8.1f}%")
        print(f"ALL rows {len(all_tpot)}: TPOT MAPE {np.mean(all_tpot)*100:.1f} %, TTFT MAPE {np.mean(all_ttft)*100:.1f} %")
    return float(np.mean(all_tpot)), float(np.mean(all_ttft))


def check_microbench(coeffs):
    import json
    mb = json.loads((VALID / "h200_microbench_measured.json").read_text())
    bw, fl = 4.8e12, 989e12
    layer_bytes = 436e6  # four bf16 GEMMs of one layer (JSON)
    layer_params = layer_bytes / 2
    print("H200 Llama-3.1-8B layer linear: tokens measured_ms model_ms")
    for t, v in mb["llama31_8b_layer_linear"].items():
        t = int(t)
        model = (max(layer_bytes / (bw * coeffs.eta_mem_stream), 2 * layer_params * t / (fl * coeffs.eta_compute))
                 + 4 * coeffs.t_kernel_s) * 1e3
        print(f"  {t:6d} {v['layer_linear_ms']:8.3f} {model:8.3f} ({(model / v['layer_linear_ms'] - 1) * 100:+.0f} %)")


def fit_gpu_profiles(path=Path(__file__).resolve().parent / "data" / "gpu_kernel_profiles.csv"):
    """Per GPU, from its own kernel timings (simulate.MEASURED_KERNELS_BY_GPU), the coefficients that were fitted on
    kernel timings of the reference GPUs:
    - stream rows (memory-bound: one token): time = weight bytes / (spec bandwidth x eta_mem_stream) + intercept, least
      squares over the single-GEMM rows (the layer GEMMs and the LM head); the intercept is t_kernel_s. A row that ran
      faster than the spec bandwidth allows read its weights from the L2, not HBM, and is left out. A fused-MoE layer
      at a few tokens past the L2 (several kernels sharing one intercept) is fitted alone the same way: its slope is
      eta_expert_stream, the experts' read; where a GPU has no single-GEMM row it stands for eta_mem_stream too;
    - compute rows (GEMMs at >= 1,024 tokens): eta_compute = the median of 2 x tokens x k x n / time / spec bf16 FLOPS;
    - attention rows (prefill chunks of >= 1,024 tokens after `prefix` cached ones): eta_attn_compute likewise."""
    by_gpu: dict[str, list[dict]] = {}
    for r in csv.DictReader(path.open()):
        by_gpu.setdefault(r["gpu_id"], []).append(r)
    out = {}
    for gpu_id, rs in by_gpu.items():
        gpu = resolve_gpu(gpu_id, detect=False)[0]
        def line(rows):
            x = np.array([[1.0, float(r["weight_bytes"])] for r in rows])
            y = np.array([float(r["time_us"]) * 1e-6 for r in rows])
            (a, s), *_ = np.linalg.lstsq(x, y, rcond=None)
            return a, s

        bw = gpu.hbm_bandwidth_bytes_per_s
        single = [r for r in rs if r["regime"] == "stream" and r["kernels"] == "1"]
        in_l2 = [r for r in single if float(r["weight_bytes"]) / (float(r["time_us"]) * 1e-6) > bw]
        single = [r for r in single if r not in in_l2]
        fused = [r for r in rs if r["regime"] == "stream" and r["kernels"] != "1"]
        eta_expert = s_expert = None
        if fused:
            _, s_expert = line(fused)
            eta_expert = 1 / (s_expert * bw)
        stream = single or fused
        intercept, s_per_byte = line(stream)
        eta = 1 / (s_per_byte * bw)
        t_kernel = intercept if single else None
        if s_expert is None:
            s_expert = s_per_byte
        rates = sorted(2 * int(r["tokens"]) * int(r["k"]) * int(r["n"]) / (float(r["time_us"]) * 1e-6) / gpu.peak_flops("bfloat16")
                       for r in rs if r["regime"] == "compute")
        eta_compute = statistics.median(rates) if rates else None
        # prefill attention (32 query heads x 128, causal): 4 x heads x head_dim x chunk x (prefix + (chunk + 1) / 2) FLOPs
        attn = sorted(4 * 32 * 128 * int(r["tokens"]) * (int(r["prefix"]) + (int(r["tokens"]) + 1) / 2)
                      / (float(r["time_us"]) * 1e-6) / gpu.peak_flops("bfloat16") for r in rs if r["regime"] == "attention")
        eta_attn = statistics.median(attn) if attn else None
        # fused-MoE layers (E experts touched, `tokens` x top-k pairs; k x n the per-token expert GEMM shape) read their
        # experts and then compute: time = intercept + bytes / (BW x eta_mem_stream) + FLOPs / (peak x eta_moe_compute),
        # the two added (moe_overlap 0), eta_mem_stream held at the stream fit's
        moe = [r for r in rs if r["regime"] == "moe" or (r["regime"] == "stream" and r["op"].startswith("fused_moe"))]
        eta_moe = None
        if any(r["regime"] == "moe" for r in moe):
            ym = np.array([float(r["time_us"]) * 1e-6 - float(r["weight_bytes"]) * s_expert for r in moe])
            xm = np.array([[1.0, 2.0 * int(r["tokens"]) * int(r["k"] or 0) * int(r["n"] or 0)] for r in moe])
            (_, s_per_flop), *_ = np.linalg.lstsq(xm, ym, rcond=None)
            eta_moe = 1 / (s_per_flop * gpu.peak_flops("bfloat16"))
        out[gpu_id] = (eta, t_kernel, eta_compute, eta_attn, eta_moe, eta_expert if single else None)
        print(f"{gpu_id}: eta_mem_stream {eta:.3f}, "
              + (f"t_kernel {t_kernel * 1e6:.1f} us" if t_kernel is not None else f"intercept {intercept * 1e6:.1f} us (several kernels)")
              + f" over {len(stream)} stream rows (residuals "
              + ", ".join(f"{(intercept + float(r['weight_bytes']) * s_per_byte) / (float(r['time_us']) * 1e-6) - 1:+.1%}" for r in stream)
              + ")" + "".join(f"; {r['op']} ({r['setup'].split(', ')[-1]}) left out: {float(r['weight_bytes']) / (float(r['time_us']) * 1e-6) / 1e9:,.0f} GB/s "
                              f"is past the {bw / 1e9:,.0f} GB/s spec (L2-resident)" for r in in_l2)
              + (f"; eta_expert_stream {eta_expert:.3f} over {len(fused)} fused-MoE stream rows" if single and fused else "")
              + (f"; eta_compute {eta_compute:.3f}, the median of {len(rates)} GEMMs at >= 1,024 tokens "
                       f"(range {rates[0]:.2f}-{rates[-1]:.2f})" if rates else "")
              + (f"; eta_attn_compute {eta_attn:.3f}, the median of {len(attn)} prefill-attention chunks of >= 1,024 tokens "
                 f"(range {attn[0]:.2f}-{attn[-1]:.2f})" if attn else "")
              + (f"; eta_moe_compute {eta_moe:.3f} (moe_overlap 0) over {len(moe)} fused-MoE rows" if eta_moe else ""))
    return out


MIXED_CELLS = Path(__file__).resolve().parent / "data" / "mixed_attention_cells.csv"
LLMSERVINGSIM_COMMIT = "5daddb21a545658d5150b535712d0494584b5278"
MIXED_PROFILES = {  # LLMServingSim profiler/perf/<path>/attention.csv -> (kvplan GPU id, query heads per KV head)
    "RTX4090/meta-llama/Llama-3.1-8B/bf16/tp1": ("rtx-4090", 32 // 8),
    "RTXPRO6000/meta-llama/Llama-3.1-8B/bf16/tp1": ("rtx-pro-6000-blackwell", 32 // 8),
    "RTXPRO6000/Qwen/Qwen3-32B/bf16/tp1": ("rtx-pro-6000-blackwell", 64 // 8),
    "RTXPRO6000/Qwen/Qwen3-30B-A3B-Instruct-2507/bf16/tp1": ("rtx-pro-6000-blackwell", 32 // 4),
}


def extract_mixed_attention(mirror: str) -> None:
    """Write MIXED_CELLS from a git mirror of casys-kaist/LLMServingSim (MIT) at LLMSERVINGSIM_COMMIT: for every cell of
    an attention.csv with a prefill chunk, no cached prefix, and decodes, the mixed time beside the same chunk alone
    and the same decodes alone (vLLM 0.19.0 FlashAttention, eager, one layer)."""
    import subprocess

    out = ["profile,gpu_id,query_heads_per_kv_head,chunk,n_decode,kv_decode,mixed_us,chunk_alone_us,decode_alone_us"]
    for path, (gpu_id, group) in MIXED_PROFILES.items():
        text = subprocess.run(["git", "-C", mirror, "show", f"{LLMSERVINGSIM_COMMIT}:profiler/perf/{path}/attention.csv"],
                              check=True, capture_output=True, text=True).stdout
        cells = {tuple(int(r[k]) for k in ("prefill_chunk", "kv_prefill", "n_decode", "kv_decode")): r["time_us"]
                 for r in csv.DictReader(text.splitlines())}
        for (chunk, prefix, n, kv), t in sorted(cells.items()):
            if chunk and n and not prefix and (0, 0, n, kv) in cells and (chunk, 0, 0, 0) in cells:
                out.append(f"{path},{gpu_id},{group},{chunk},{n},{kv},{t},{cells[(chunk, 0, 0, 0)]},{cells[(0, 0, n, kv)]}")
    MIXED_CELLS.write_text("\n".join(out) + "\n")
    print(f"{len(out) - 1} cells -> {MIXED_CELLS}")


def fit_mixed_attention(path=MIXED_CELLS, min_decode_us=50.0) -> dict:
    """mixed_decode_kv_per_extra_head per GPU: each cell's decode share of a mixed launch, (mixed - chunk alone) /
    decodes alone = 1 + a (query heads per KV head - 1), solved for a; the median over the GPU's cells whose decodes
    alone take >= `min_decode_us` (below that the launch's fixed cost swamps the KV read)."""
    by_gpu: dict[str, list[float]] = defaultdict(list)
    for r in csv.DictReader(path.open()):
        dec = float(r["decode_alone_us"])
        if dec >= min_decode_us:
            share = (float(r["mixed_us"]) - float(r["chunk_alone_us"])) / dec
            by_gpu[r["gpu_id"]].append((share - 1) / (int(r["query_heads_per_kv_head"]) - 1))
    out = {}
    for gpu_id, a in sorted(by_gpu.items()):
        q = np.percentile(a, [10, 50, 90])
        out[gpu_id] = float(q[1])
        print(f"{gpu_id}: mixed_decode_kv_per_extra_head {q[1]:.3f}, the median of {len(a)} cells (p10 {q[0]:.3f}, "
              f"p90 {q[2]:.3f}; sources: https://github.com/casys-kaist/LLMServingSim/tree/{LLMSERVINGSIM_COMMIT}/profiler/perf)")
    return out


GEMM_BATCH_PROFILES = {  # LLMServingSim profiler/perf/<path>/dense.csv -> (kvplan GPU id, the setup text of its rows)
    "RTX4090/meta-llama/Llama-3.1-8B/bf16/tp1": ("rtx-4090", "vLLM 0.19.0, CUDA 12.8, eager, Llama-3.1-8B bf16 TP1"),
    "RTXPRO6000/meta-llama/Llama-3.1-8B/bf16/tp1": ("rtx-pro-6000-blackwell",
                                                    "vLLM 0.19.0, CUDA 13.0, eager, Llama-3.1-8B bf16 TP1 (Server Edition)"),
    "RTXPRO6000/Qwen/Qwen3-32B/bf16/tp1": ("rtx-pro-6000-blackwell",
                                           "vLLM 0.19.0, CUDA 13.0, eager, Qwen3-32B bf16 TP1 (Server Edition)"),
}
LAYER_GEMMS = ("qkv_proj", "o_proj", "gate_up_proj", "down_proj")
GEMM_SHAPES = {  # (k, n) of each layer GEMM at TP1, from the models' config.json (hidden, heads x head_dim, intermediate)
    "Llama-3.1-8B": {"qkv_proj": (4096, 6144), "o_proj": (4096, 4096), "gate_up_proj": (4096, 28672), "down_proj": (14336, 4096)},
    "Qwen3-32B": {"qkv_proj": (5120, 10240), "o_proj": (8192, 5120), "gate_up_proj": (5120, 51200), "down_proj": (25600, 5120)},
}


def gemm_batch_tokens(largest: int = 256) -> list[int]:
    """The token counts a decode batch runs its GEMMs at, up to `largest`: vLLM 0.19's CUDA-graph capture sizes (a batch
    is padded up to the next one, vllm/v1/cudagraph_dispatcher.py `_compute_bs_to_padded_graph_size`), those the
    profiles timed (1-15 each, 16-64 every 4, then every 16)."""
    from kvplan.plan import cudagraph_capture_sizes

    grid = set(range(1, 16)) | set(range(16, 64, 4)) | set(range(64, 2049, 16))
    return [t for t in cudagraph_capture_sizes(largest, 2 * largest) if t in grid and t <= largest]


def extract_gemm_batches(mirror: str) -> None:
    """Append to gpu_kernel_profiles.csv the four layer GEMMs of each GEMM_BATCH_PROFILES dense.csv at the token counts
    of `gemm_batch_tokens` past one (regime "batch"; the one-token rows are the "stream" rows already there) and at
    >= 1,024 tokens (regime "compute", with the GEMM's k x n, where the file has none of that profile yet), from a git
    mirror of casys-kaist/LLMServingSim (MIT) at LLMSERVINGSIM_COMMIT."""
    import subprocess

    path = Path(__file__).resolve().parent / "data" / "gpu_kernel_profiles.csv"
    have = list(csv.DictReader(path.open()))
    stream = {(r["setup"], r["op"]): r for r in have if r["regime"] == "stream"}
    lines = [line for line in path.read_text().splitlines() if ",batch," not in line]  # the file's rows end in CRLF
    wanted = set(gemm_batch_tokens()) - {1}
    computed = {r["setup"] for r in have if r["regime"] == "compute"}
    for prof, (gpu_id, setup) in GEMM_BATCH_PROFILES.items():
        text = subprocess.run(["git", "-C", mirror, "show", f"{LLMSERVINGSIM_COMMIT}:profiler/perf/{prof}/dense.csv"],
                              check=True, capture_output=True, text=True).stdout
        url = f"https://github.com/casys-kaist/LLMServingSim/blob/{LLMSERVINGSIM_COMMIT}/profiler/perf/{prof}/dense.csv"
        for r in csv.DictReader(text.splitlines()):
            if r["layer"] in LAYER_GEMMS and int(r["tokens"]) in wanted:
                one = stream[(setup, r["layer"])]
                lines.append(f'{url},{gpu_id},"{setup}",batch,{r["layer"]},1,{one["weight_bytes"]},,,{r["tokens"]},{r["time_us"]},')
            if r["layer"] in LAYER_GEMMS and int(r["tokens"]) >= 1024 and setup not in computed:
                k, n = GEMM_SHAPES[setup.split(", ")[-1].split(" ")[0]][r["layer"]]
                one = stream[(setup, r["layer"])]
                assert 2 * k * n == int(one["weight_bytes"]), (setup, r["layer"])
                lines.append(f'{url},{gpu_id},"{setup}",compute,{r["layer"]},1,{one["weight_bytes"]},{k},{n},{r["tokens"]},{r["time_us"]},')
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    print(f"{sum(',batch,' in line for line in lines)} batch rows -> {path}")


def fit_gemm_batch_factors(path=Path(__file__).resolve().parent / "data" / "gpu_kernel_profiles.csv") -> dict:
    """gemm_batch_factors per GPU (simulate.MEASURED_KERNELS_BY_GPU): at each token count of `gemm_batch_tokens`, the
    layer GEMMs' summed time over their summed time at one token (every profile of the GPU together; the one-token
    time is the "stream" rows', the others the "batch" rows'). A GEMM does not stream its weights at M tokens as
    fast as at one: cuBLAS picks larger M tiles past 16 tokens, and compute starts to show well before the roofline's
    ridge."""
    rows = list(csv.DictReader(path.open()))
    one = {(r["setup"], r["op"]): float(r["time_us"]) for r in rows if r["regime"] == "stream" and r["op"] in LAYER_GEMMS}
    at: dict = defaultdict(lambda: defaultdict(float))
    base: dict = defaultdict(lambda: defaultdict(float))
    for r in rows:
        if r["regime"] == "batch":
            t = int(r["tokens"])
            at[r["gpu_id"]][t] += float(r["time_us"])
            base[r["gpu_id"]][t] += one[(r["setup"], r["op"])]
    out = {}
    for gpu_id in sorted(at):
        table = ((1, 1.0),) + tuple((t, round(at[gpu_id][t] / base[gpu_id][t], 3)) for t in sorted(at[gpu_id]))
        out[gpu_id] = table
        profiles = sum(g == gpu_id for g, _ in GEMM_BATCH_PROFILES.values())
        print(f"{gpu_id}: gemm_batch_factors (layer GEMMs at M tokens / at one token, {profiles} profile(s)' dense.csv): " + ", ".join(f"{t}: {f:.3f}" for t, f in table))
    return out


def main():
    if "--extract-mixed-attention" in sys.argv:
        extract_mixed_attention(sys.argv[sys.argv.index("--extract-mixed-attention") + 1])
        return
    if "--extract-gemm-batches" in sys.argv:
        extract_gemm_batches(sys.argv[sys.argv.index("--extract-gemm-batches") + 1])
        return
    if "--gpu-profiles" in sys.argv:
        fit_gpu_profiles()
        fit_mixed_attention()
        fit_gemm_batch_factors()
        return
    rs = rows()
    print(f"{len(rs)} AIConfigurator vLLM rows (dense models, H100/H200)")
    check_microbench(DEFAULT_COEFFICIENTS)
    if "--fit" in sys.argv:
        sub = [r for r in rs if not kv_bound(r)]
        print(f"fitting on the {len(sub)} rows that are not KV-bound")
        best = None
        for tf, tsl, ekv in itertools.product([0.0, 0.00025, 0.0005, 0.001], [0.0, 0.4e-6, 0.6e-6, 0.8e-6, 1.0e-6, 1.2e-6, 1.5e-6],
                                              [0.6, 0.7, 0.8]):  # eta_kv <= 0.8: see StepCoefficients
            c = replace(DEFAULT_COEFFICIENTS, t_fixed_s=tf, t_seq_layer_s=tsl, eta_kv_mem=ekv)
            tpot, ttft = evaluate(sub, c)
            if best is None or tpot < best[0]:
                best = (tpot, c, ttft)
        print("best:", best[1], f"TPOT MAPE {best[0]*100:.1f} % TTFT MAPE {best[2]*100:.1f} %")
        evaluate(rs, best[1], verbose=True)
    else:
        evaluate(rs, DEFAULT_COEFFICIENTS, verbose=True)
    if "--moe" in sys.argv:
        mr = moe_rows()
        print(f"\nMoE hold-out: {len(mr)} AIConfigurator vLLM rows (pure TP), step model from kvplan's plan")
        evaluate(mr, DEFAULT_COEFFICIENTS, verbose=True, builder=moe_step_model_for)


if __name__ == "__main__":
    main()
