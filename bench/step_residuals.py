"""Residuals of the step-time model against batch size and context length, on the calibration data only.

Data (shared/data/validation/, see its README): the AIConfigurator silicon sample (vLLM aggregated rows of the
dense models the calibration uses, H100/H200, plus the vLLM Llama-3.1-70B fp8 rows on B200, which the
calibration does not fit on: a hold-out GPU) replayed exactly as bench/calibrate_step_model.py does, and the
H200 micro-benchmark (layer GEMMs vs tokens). The four vLLM 0.19 validation runs are not read here.

Residual = predicted / measured - 1 of the mean TPOT of a closed-loop row. The batch-size trend is measured
within cells (same model, GPU, TP, isl, osl; only the concurrency changes), so per-cell biases (fp8 KV or not,
TP communication) cancel: slope = least-squares d(log pred/meas) / d(log2 concurrency), pooled over cells.

Run:  PYTHONPATH=src python bench/step_residuals.py [--b200] [--coeffs key=value ...]
"""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import replace

import numpy as np

import calibrate_step_model as cal
from kvplan.simulate import DEFAULT_COEFFICIENTS


def rows(b200: bool):
    rs = cal.rows()
    if b200:
        rs = rs + cal.rows(systems=("b200_sxm",), models=("meta-llama/Llama-3.1-70B",), quant=("fp8",))
    return rs


def residuals(rs, coeffs):
    out = []
    for r in rs:
        _ttft, tpot = cal.replay(r, coeffs)
        out.append(dict(model=r["model_path"].split("/")[-1], gpu=r["system"].split("_")[0], tp=int(r["tp_size"]),
                        isl=int(r["isl"]), osl=int(r["osl"]), c=int(r["batch_size"]), meas=float(r["silicon_tpot_ms"]),
                        pred=tpot, kv_bound=cal.kv_bound(r)))
    return out


def within_cell_slope(res):
    """Pooled within-cell slope of log(pred/meas) on log2(concurrency), its standard error, cells used."""
    cells = defaultdict(list)
    for x in res:
        cells[(x["model"], x["gpu"], x["tp"], x["isl"], x["osl"])].append(x)
    xs, ys = [], []
    for v in cells.values():
        if len(v) < 3:
            continue
        lx = np.log2([x["c"] for x in v])
        ly = np.log([x["pred"] / x["meas"] for x in v])
        xs.append(lx - lx.mean())
        ys.append(ly - ly.mean())
    if not xs:
        return float("nan"), float("nan"), 0
    x, y = np.concatenate(xs), np.concatenate(ys)
    b = float((x * y).sum() / (x * x).sum())
    dof = max(len(x) - len(xs) - 1, 1)
    se = float(np.sqrt(((y - b * x) ** 2).sum() / dof / (x * x).sum()))
    return b, se, len(xs)


def table(res, label):
    print(f"\n### {label}: residual (pred/meas - 1 of mean TPOT) by concurrency\n")
    groups = sorted({(x["model"], x["gpu"]) for x in res})
    cs = sorted({x["c"] for x in res})
    print("| concurrency | " + " | ".join(f"{m} {g}" for m, g in groups) + " | all rows (n) |")
    print("|---:|" + "---:|" * (len(groups) + 1))
    for c in cs:
        cells = []
        for m, g in groups:
            e = [x["pred"] / x["meas"] - 1 for x in res if x["c"] == c and (x["model"], x["gpu"]) == (m, g)]
            cells.append(f"{np.mean(e) * 100:+.1f} % ({len(e)})" if e else "")
        e = [x["pred"] / x["meas"] - 1 for x in res if x["c"] == c]
        print(f"| {c} | " + " | ".join(cells) + f" | {np.mean(e) * 100:+.1f} % ({len(e)}) |")
    print("\nwithin-cell slope of log(pred/meas) per doubling of concurrency (negative: the model's step rises too"
          " slowly with batch), rows not KV-bound (calibrate_step_model.kv_bound):")
    for m, g in groups + [("all", "")]:
        sub = [x for x in res if (m == "all" or (x["model"], x["gpu"]) == (m, g)) and not x["kv_bound"]]
        b, se, n = within_cell_slope(sub)
        dd = [x for x in sub if x["osl"] >= x["isl"]]
        b2, se2, n2 = within_cell_slope(dd)
        if n:
            print(f"  {m:26s} {g:5s} {b * 100:+5.2f} % +- {se * 100:.2f} % per doubling ({n} cells); decode-dominated"
                  f" (osl >= isl) {b2 * 100:+5.2f} % +- {se2 * 100:.2f} % ({n2} cells)")
    print("\nby context (isl + osl/2) and concurrency, all rows, mean residual:")
    bins = [(0, 1500), (1500, 3000), (3000, 6000), (6000, 20000)]
    print("| isl+osl/2 | " + " | ".join(f"c {lo}-{hi}" for lo, hi in [(4, 8), (16, 32), (48, 80), (96, 144)]) + " |")
    print("|---|---:|---:|---:|---:|")
    for lo, hi in bins:
        cells = []
        for clo, chi in [(4, 8), (16, 32), (48, 80), (96, 144)]:
            e = [x["pred"] / x["meas"] - 1 for x in res if lo <= x["isl"] + x["osl"] / 2 < hi and clo <= x["c"] <= chi]
            cells.append(f"{np.mean(e) * 100:+.1f} % ({len(e)})" if e else "")
        print(f"| {lo}-{hi} | " + " | ".join(cells) + " |")
    mape = np.mean([abs(x["pred"] / x["meas"] - 1) for x in res]) * 100
    print(f"\nTPOT MAPE over these {len(res)} rows: {mape:.1f} %")


def microbench(coeffs):
    import json
    mb = json.loads((cal.VALID / "h200_microbench_measured.json").read_text())
    bw, fl = 4.8e12, 989e12
    layer_bytes = 436e6
    print("\n### H200 micro-benchmark, Llama-3.1-8B layer GEMMs (no attention, no per-request work)\n")
    print("| tokens | measured ms | model ms | residual |")
    print("|---:|---:|---:|---:|")
    for t, v in mb["llama31_8b_layer_linear"].items():
        t = int(t)
        model = (max(layer_bytes / (bw * coeffs.eta_mem_stream), 2 * layer_bytes / 2 * t / (fl * coeffs.eta_compute))
                 + 4 * coeffs.t_kernel_s) * 1e3
        print(f"| {t} | {v['layer_linear_ms']:.3f} | {model:.3f} | {(model / v['layer_linear_ms'] - 1) * 100:+.0f} % |")


def main():
    coeffs = DEFAULT_COEFFICIENTS
    for a in sys.argv[1:]:
        if "=" in a:
            k, v = a.split("=", 1)
            coeffs = replace(coeffs, **{k: type(getattr(coeffs, k))(float(v))})
    res = residuals(rows(False), coeffs)
    table(res, "calibration rows (vLLM, dense, H100/H200)")
    if "--b200" in sys.argv:
        rb = residuals(cal.rows(systems=("b200_sxm",), models=("meta-llama/Llama-3.1-70B",), quant=("fp8",)), coeffs)
        table(rb, "hold-out: vLLM Llama-3.1-70B fp8 on B200 (not fitted on)")
    microbench(coeffs)


if __name__ == "__main__":
    main()
