"""Step-time model vs the decode-only seconds of the four vLLM 0.19.0 runs (no scheduler involved).

For every second of a run's timeseries.csv with no prompt tokens, a running count that matches the decoders
reconstructed from requests.jsonl (first_token_ts <= t < last_token_ts), and >= 4 decoders per rank, the
measured step time is decoders / gen_throughput (every decoder emits one token per step). The model's step is
StepModel.step_s(decoders per rank, their total context per rank) with its linear layers over the CUDA graph's padded
batch (EngineConfig.graph_tokens), as the simulator charges it, the context of each decoder interpolated linearly
between its prompt and prompt + output over its decode span. Prints per-run medians and a sweep of
eta_kv_mem (the paged-attention KV-read efficiency) to show what one global value can and cannot do.

Run:  PYTHONPATH=src python bench/check_decode_steps.py
"""

from __future__ import annotations

import csv
import json
from dataclasses import replace

import numpy as np

from bench_simulate import RUNS, load_run, run_setup


def decode_only_points(name: str, dp: int) -> list[tuple[int, int, float]]:
    """(decoders per rank, context tokens per rank, measured step s) for the decode-only seconds of a run."""
    d = RUNS / name
    reqs = [json.loads(line) for line in (d / "requests.jsonl").read_text().splitlines() if line.strip()]
    t0 = min(r["queued_ts"] for r in reqs)
    points = []
    with open(d / "timeseries.csv") as fh:
        for row in csv.DictReader(fh):
            t_mid_s = float(row["t"]) - 0.5
            decoding = [r for r in reqs if r["first_token_ts"] - t0 <= t_mid_s < r["last_token_ts"] - t0]
            ctx = sum(r["input_toks"] + (t_mid_s - (r["first_token_ts"] - t0))
                      / max(r["last_token_ts"] - r["first_token_ts"], 1e-9) * r["output_toks"] for r in decoding)
            gen = float(row["gen_throughput"])
            n = len(decoding)
            if float(row["prompt_throughput"]) == 0 and gen > 0 and n >= 4 * dp and abs(float(row["running"]) - n) <= 2:
                points.append((round(n / dp), int(ctx / dp), n / gen))
    return points


def model_step_s(sm, cfg, n: int, ctx: int) -> float:
    """The simulator's decode-only step: n requests' attention and LM head, the linear layers over the padded batch."""
    return sm.step_s(n, ctx) - sm.fixed_part_s(n, n) + sm.fixed_part_s(cfg.graph_tokens(n), n)


def main() -> None:
    runs = {}
    for name in sorted(p.name for p in RUNS.iterdir() if p.is_dir()):
        meta, _w, _measured, _ts = load_run(name)
        cfg, sm, dp, _src = run_setup(name, meta)
        runs[name] = (sm, decode_only_points(name, dp), cfg)
    print("| run | decode-only seconds | decoders per rank (range) | median step measured | median model error |")
    print("|---|---:|---|---:|---:|")
    for name, (sm, pts, cfg) in runs.items():
        err = np.median([model_step_s(sm, cfg, n, c) / m - 1 for n, c, m in pts])
        ns = [n for n, _, _ in pts]
        print(f"| {name} | {len(pts)} | {min(ns)}-{max(ns)} | {np.median([m for *_, m in pts]) * 1e3:.1f} ms | {err * 100:+.1f} % |")
    print("\nmedian model error per run vs eta_kv_mem (one global value):")
    for eta in (0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9):
        errs = [np.median([model_step_s(replace(sm, coeffs=replace(sm.coeffs, eta_kv_mem=eta)), cfg, n, c) / m - 1
                           for n, c, m in pts]) for sm, pts, cfg in runs.values()]
        print(f"  eta_kv_mem {eta:.2f}: " + "  ".join(f"{e * 100:+5.1f} %" for e in errs)
              + f"   mean |err| {np.mean(np.abs(errs)) * 100:.1f} %")


if __name__ == "__main__":
    main()
